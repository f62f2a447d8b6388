"""One match and the people at its table: referee.py referees it (seats, version, turn
clock, move log, watchers), updates.py is what its watchers hear, seats.py its seat
tokens, pools.py seats bots that enlisted in a pool, forking.py checks a fork's record."""
