"""Python helpers over the generated contract (domino_proto), shared by everything that
speaks it: the engine's rpc layer, the gateway, the bot runner and the `domino` command.

names.py: the words of the contract's enums ("hhl", "person", "rotation"), derived from
the enums themselves, so that no table of them is copied by hand. ladders.py: the
Standings message as the plain dict that the REST gateway and the command line show.
Nothing here knows the rules or the engine's internals.
"""
