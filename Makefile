# Two entry points that set themselves up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit integration bench image clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m bot.demo

test: lint typecheck
	$(BIN)/pytest -q -m "not soak and not image"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q -m "not integration and not soak and not image"

integration: $(STAMP)
	$(BIN)/pytest -q -m integration

# Builds the Dockerfile and runs docker-compose.yml without a Docker engine (root, Debian
# mirror and PyPI reachable): docs/deploy.md, "How the image is checked without Docker".
image: $(STAMP)
	$(BIN)/pytest -q -m image

bench: $(STAMP)
	for script in bench/*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
