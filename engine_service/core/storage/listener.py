"""PostgreSQL's notifications (LISTEN/NOTIFY), heard on a connection of their own: how an
engine learns at once of another engine's write, instead of at its next poll.

A notification is a hint, never the work: what it announces is also found by the poll it
cuts short, so one that is lost (the connection broke, the server restarted, the payload
is not what was expected) delays something by a poll and loses nothing. Its payload is
anyone's who can write to the database: the listener only hands it on, and its reader
takes it as a reason to look, nothing more.

The listener's thread never dies and never hangs: a broken connection is logged (once per
outage) and opened again every RETRY_S, and `heard(None)` is called each time it listens,
since anything may have been missed before. Every wait is bounded: opening (libpq's
connect_timeout), the LISTEN (the store's round-trip bound), and each wait for a
notification (WAIT_S). Closing it waits for its thread JOIN_S at most (the thread sees the
stop within WAIT_S, or once a connection being opened is), and the thread is a daemon:
it never holds up the engine's exit.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from psycopg import sql

from .health import first_line

log = logging.getLogger(__name__)

WAIT_S = 0.5       # one wait for notifications: how soon the thread sees it must stop
RETRY_S = 1.0      # between attempts to open the connection again
JOIN_S = 2.0       # how long closing waits for the thread (libpq's connect_timeout)


class Listener:
    """Hears `channel` on connections from `connect()`, calling `heard(payload)` on its own
    thread for each notification, and `heard(None)` each time it starts listening."""

    def __init__(self, connect: Callable, channel: str, heard: Callable[[str | None], None],
                 name: str):
        self._connect = connect
        self._channel = channel
        self._heard = heard
        self._name = name            # how logs name the store (no password)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"listen-{self._channel}",
                                        daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(JOIN_S)

    def _run(self) -> None:
        broken = ""      # why the last connection ended ("": none has, or it was told)
        while not self._stop.is_set():
            conn = None
            try:
                conn = self._connect()
                conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self._channel)))
                if broken:
                    log.warning("notifications on %s heard again on the store %s",
                                self._channel, self._name)
                    broken = ""
                self._tell(None)
                while not self._stop.is_set():
                    for notice in conn.notifies(timeout=WAIT_S):
                        self._tell(notice.payload)
            except Exception as e:   # noqa: BLE001 - any failure: the polls go on, try again
                why = first_line(e)
                if not broken and not self._stop.is_set():
                    log.warning("notifications on %s from the store %s are not heard (%s): "
                                "polling alone until they are, trying again every %g s",
                                self._channel, self._name, why, RETRY_S)
                broken = why
            finally:
                if conn is not None:
                    conn.close()
            self._stop.wait(RETRY_S)

    def _tell(self, payload: str | None) -> None:
        try:
            self._heard(payload)
        except Exception:   # the listener's own work goes on: the polls cover it
            log.exception("notifications on %s: handling one failed", self._channel)

