"""The arena (docs/arena.md): registered bots connect whenever they like and the engine
keeps seating them at tables of similar strength, on a persistent leaderboard.

room.py puts the parts together: accounts.py (registered bots, their keys, residents),
lobbies.py (the lobby streams this engine holds, presence, seat delivery), matchmaker.py
(one per arena, on the engine holding its lease), host.py (the arena matches this engine
plays: seats, residents, no-shows, results), residents.py (the house strategies, played
in process), results.py (an arena result from a match). The matchmaking and the
leaderboard themselves are pure: the top-level `ladders` package (matchmaking.py,
leaderboard.py)."""
