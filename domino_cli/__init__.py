"""The `domino` command (domino_cli.main): the composition root of the product."""

import os as _os
import sys as _sys

# `domino conformance` restarts engines on purpose, and gRPC's core logs every GOAWAY it
# then meets at its INFO level; it reads GRPC_VERBOSITY once, when grpc is imported, which
# is before any command runs. (The bots under test inherit the setting.)
if _sys.argv[1:2] == ["conformance"]:
    _os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
