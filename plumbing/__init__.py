"""Plumbing shared by the engine's rpc layer and the bot runner: a timer thread for many
alarms (alarms.py) and a stream's inbox on an asyncio loop (inbox.py). Standard library
only, and nothing about dominoes: tests/layers checks both."""
