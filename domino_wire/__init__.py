"""Python helpers over the generated contract (domino_proto), shared by everything that
speaks it: the engine's rpc layer, the gateway, the bot runner and the `domino` command.

names.py: the words of the contract's enums ("hhl", "person", "rotation"), derived from
the enums themselves, so that no table of them is copied by hand. game.py: the game's
typed values (tiles.py, results.py, events.py, views.py, options.py) as the plain dicts of
docs/views.md and docs/records.md, both ways. ladders.py: the Standings and LadderResult
messages as the plain dicts that the REST gateway and the command line show. routing.py:
following a match to the engine that owns it. parts.py: messages put together from
serialized parts.
Nothing here knows the rules or the engine's internals.
"""
