# Two commands set up everything on a fresh machine: `make demo` and `make test`.
# Both create the virtual environment (.venv) and install what they need into it.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORE := $(VENV)/.installed-core
DEV := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck unit services bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(CORE): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(CORE)

$(DEV): pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(CORE) $(DEV)

# The product's story on embedded defaults (SQLite, embedded memory store, offline model).
demo: $(CORE)
	AGENT_MODEL=offline $(BIN)/agent demo

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(DEV)
	$(BIN)/mypy

unit: $(DEV)
	$(BIN)/pytest tests/unit

# Lint, type check, then every test tier; the tests start (and stop) the servers they need.
test: lint typecheck
	$(BIN)/pytest

# PostgreSQL, Redis Stack and the MongoDB stand-in for manual use; Ctrl-C stops them.
services: $(DEV)
	$(BIN)/python -m tests.services

bench: $(DEV)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .agent-data .services .langgraph_api .mypy_cache .ruff_cache .pytest_cache
