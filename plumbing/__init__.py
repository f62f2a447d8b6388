"""Plumbing shared by the engine's rpc layer and the bot runner: a timer thread for many
alarms (alarms.py), a stream's inbox on an asyncio loop (inbox.py), child processes for
CPU work (workers.py) and a pool of daemon threads whose work never holds a process's exit
(daemon_pool.py). Standard library only, and nothing about dominoes: tests/layers checks
both."""
