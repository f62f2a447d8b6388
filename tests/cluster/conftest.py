import contextlib

import pytest

from tests.cluster.support import EngineCluster


@pytest.fixture
def cluster(pg_dsn, tmp_path):
    """A factory: engines on one fresh PostgreSQL database, stopped at the end. Their logs
    are in the test's folder (engines.log), shown when a test fails."""
    made = []

    def make(n: int, extra: tuple = ()) -> EngineCluster:
        made.append(EngineCluster(pg_dsn, n, str(tmp_path / "engines.log"), extra))
        return made[-1]

    yield make
    for c in made:
        with contextlib.suppress(Exception):
            c.close()
