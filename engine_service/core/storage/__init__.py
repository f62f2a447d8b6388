"""Where matches and ladders survive a crash. rows.py: the rows kept and the stores'
errors; sql.py: the statements every SQL store shares, written once; sqlite.py: the
embedded default; postgres.py: the store several engines share, with the cluster's
tables; factory.py: the one place that opens either from a `--db`."""
