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

$(INSTALLED): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# compat mode puts the project root on sys.path, so the generated package is
	# importable whenever `make proto` (re)creates it.
	$(PY) -m pip install -q -e '.[dev]' --config-settings editable_mode=compat
	touch $@

# The only place protobuf code is generated. Never edit domino_proto/ by hand.
proto: $(PROTO_STAMP)

$(PROTO_STAMP): $(PROTO_SRC) $(INSTALLED) tools/gen_proto.py
	$(PY) tools/gen_proto.py proto $(PROTO_OUT)
	touch $@

run: install
	$(BIN)/domino demo

test: install
	$(PY) -m pytest

bench: install
	$(PY) -m benchmarks

lint: install
	$(BIN)/ruff check engine_service bots gateway tests benchmarks tools

clean:
	rm -rf $(VENV) $(PROTO_OUT) .pytest_cache .hypothesis .ruff_cache build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
