"""The engine's gRPC face: the only engine modules that import grpc or domino_proto.

server.py runs the grpc.aio server and the Engine servicer; play_session.py and watch.py
are the two kinds of stream, both served by the one loop of streams.py;
ladder_service.py is the Ladder servicer; codec.py encodes the core's values as protobuf
messages; status.py turns a refusal into its gRPC status. Each servicer decodes, makes one
call into engine_service.core, and encodes.
"""
