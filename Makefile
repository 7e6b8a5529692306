# Two commands set up everything on a fresh machine: `make demo` and `make test`.
# Both create the virtual environment (.venv) and install what they need into it.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit e2e integration clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	AGENT_MODEL=offline $(BIN)/agent demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest tests/unit

test: lint typecheck $(STAMP)
	$(BIN)/pytest

clean:
	rm -rf $(VENV) .agent-data .mypy_cache .ruff_cache .pytest_cache
