# Two commands matter: `make run` and `make test`. Each creates the virtual environment
# when missing, installs the project, generates the protobuf code, then does its job.
# The stamp files make a second run fast.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
INSTALLED := $(VENV)/.installed
PROTO_SRC := $(wildcard proto/domino/v1/*.proto)
PROTO_OUT := domino_proto
PROTO_STAMP := $(PROTO_OUT)/.generated

.PHONY: run test proto bench lint clean install cpp-bot

install: $(INSTALLED) $(PROTO_STAMP)

# The editable install maps each top-level package that exists when it runs, so the
# generated package is made between installing the dependencies (grpcio-tools) and
# installing the project itself.
$(INSTALLED): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	$(PY) tools/gen_proto.py proto $(PROTO_OUT)
	$(PY) -m pip install -q --no-deps -e .
	touch $(PROTO_STAMP) $@

# The only place protobuf code is generated. Never edit domino_proto/ by hand.
proto: $(PROTO_STAMP)

$(PROTO_STAMP): $(PROTO_SRC) tools/gen_proto.py | $(INSTALLED)
	$(PY) tools/gen_proto.py proto $(PROTO_OUT)
	touch $@

# The C++ example bot (bots/cpp): Debian's grpc++ and protobuf, nothing else. Its generated
# code is made here only, into build/cpp-bot/gen (never committed); one object per file,
# reused (`make -j2 cpp-bot` compiles two at once). -O0: the bot waits on the network, and
# the generated code compiles faster unoptimized. Only what the bot links is made: the
# messages of play.proto and of the files it imports, and the Play service's stubs (the
# other services' stubs were half of the build's 38 CPU-seconds, in every `make test` of a
# fresh clone). A new import in play.proto is added to CPP_PROTOS, or the link says which
# symbols are missing.
CPP_BOT := build/cpp-bot
CPP_GEN := $(CPP_BOT)/gen
CPP_PROTOS := common engine game play
CPP_PB := $(foreach p,$(CPP_PROTOS),$(CPP_GEN)/domino/v1/$(p).pb) $(CPP_GEN)/domino/v1/play.grpc.pb
CPP_OBJ := $(patsubst $(CPP_GEN)/%,$(CPP_BOT)/obj/%.o,$(CPP_PB)) $(CPP_BOT)/obj/bot.o
CPP_FLAGS = -std=c++17 -O0 -I$(CPP_GEN) $(shell pkg-config --cflags grpc++ protobuf)

cpp-bot: $(CPP_BOT)/domino-bot

$(addsuffix .cc,$(CPP_PB)) $(addsuffix .h,$(CPP_PB)) &: $(PROTO_SRC)
	mkdir -p $(CPP_GEN)
	protoc -Iproto --cpp_out=$(CPP_GEN) --grpc_out=$(CPP_GEN) \
	  --plugin=protoc-gen-grpc=$$(which grpc_cpp_plugin) $(CPP_PROTOS:%=proto/domino/v1/%.proto)

$(CPP_BOT)/obj/%.o: $(CPP_GEN)/%.cc
	@mkdir -p $(@D)
	$(CXX) $(CPP_FLAGS) -c $< -o $@

$(CPP_BOT)/obj/bot.o: bots/cpp/bot.cc $(addsuffix .h,$(CPP_PB))
	@mkdir -p $(@D)
	$(CXX) $(CPP_FLAGS) -c $< -o $@

$(CPP_BOT)/domino-bot: $(CPP_OBJ)
	$(CXX) -o $@ $^ $(shell pkg-config --libs grpc++ protobuf)

# SERVE_ARGS: more `domino serve` options (`make run SERVE_ARGS="--port 8081 --verbose"`).
run: install
	$(BIN)/domino serve $(SERVE_ARGS)

# The suite runs in TEST_WORKERS processes (pytest-xdist): most tests wait on engines, bots
# and servers they started, so more workers than cores should finish first. At 6 the two
# cores are busy about 99% of a run and 8 was no faster (a serial measurement is still owed).
# Tests that share a worker say so (xdist_group). The C++ bot is built
# meanwhile, under the lock its test takes too (tests/bots_runner/test_cpp_bot.py),
# so the test finds it built or waits for it; build/cpp-bot.log has the build's output.
TEST_WORKERS ?= 6

test: install
	@mkdir -p build
	@( flock build/.cpp-bot.lock $(MAKE) -s -j2 cpp-bot >build/cpp-bot.log 2>&1 \
	   || echo "make test: the C++ bot did not build here (build/cpp-bot.log); its test says why" ) & \
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup; status=$$?; wait; exit $$status

bench: install
	$(PY) -m benchmarks

# ruff, then vulture for dead code (its paths and whitelist: [tool.vulture] in pyproject.toml).
lint: install
	$(BIN)/ruff check domino_cli domino_wire engine_service plumbing bots gateway ladders tests benchmarks tools
	$(BIN)/vulture

clean:
	rm -rf $(VENV) $(PROTO_OUT) .pytest_cache .hypothesis .ruff_cache build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
