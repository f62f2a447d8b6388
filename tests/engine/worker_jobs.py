"""Jobs for tests/engine/test_workers.py: module-level functions a worker process imports."""

import os
import time


def echo(value):
    return {"value": value, "pid": os.getpid()}


def sleep(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def fail(message: str):
    raise ValueError(message)


def die():
    os._exit(3)
