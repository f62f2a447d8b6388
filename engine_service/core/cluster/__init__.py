"""Several engines on one PostgreSQL store (docs/cluster.md). membership.py: heartbeats
and leases, the owner and epoch of every match and ladder, taking orphans over, where a
new match goes."""
