"""The engine service: owns every match.

rules/ is the two games as pure code; core/ is match authority with no gRPC in it; rpc/ is
the gRPC face; plumbing/ is a timer thread and a stream inbox shared with the bot runner.
docs/architecture.md says what each may import.
"""
