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

.PHONY: run test proto bench lint clean install

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

run: install
	$(BIN)/domino serve

test: install
	$(PY) -m pytest

bench: install
	$(PY) -m benchmarks

lint: install
	$(BIN)/ruff check domino_cli domino_wire engine_service bots gateway ladders tests benchmarks tools

clean:
	rm -rf $(VENV) $(PROTO_OUT) .pytest_cache .hypothesis .ruff_cache build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
