# Two entry points that set themselves up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The locks (docs/operating.md, "Dependencies"): every distribution pinned with its hashes.
LOCKS := requirements/dev.txt requirements/runtime.txt requirements/build.txt
# The tool that writes the locks; pinned so a refresh is the same everywhere.
UV_VERSION := 0.13.9
UV_COMPILE := $(VENV)/uv/bin/uv pip compile --quiet --generate-hashes --universal \
	--python-version 3.11 --custom-compile-command "make lock"

.PHONY: demo test lint typecheck unit integration installed bench image clean lock lock-upgrade

# Exactly the lock, into a venv made anew: the build backend first (the project is built
# without isolation, so the build downloads nothing unpinned), then every dependency with its
# hash, then the project itself without resolving anything.
$(STAMP): pyproject.toml $(LOCKS)
	$(PYTHON) -m venv --clear $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --require-hashes -r requirements/build.txt
	$(BIN)/pip install --quiet --disable-pip-version-check --require-hashes -r requirements/dev.txt
	# An evalbot.egg-info left in the tree by an older install shadows the new metadata (the
	# tree is on sys.path): its stale requirements would be what importlib.metadata reads.
	rm -rf evalbot.egg-info
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)

# Rewrite the three locks from pyproject.toml and requirements/build.in: dev first, runtime
# and build constrained to the same versions. `make lock` keeps every pin that still fits (run
# it after editing a requirement); `make lock-upgrade` moves everything to the newest allowed.
lock: $(VENV)/uv/bin/uv
	$(UV_COMPILE) $(LOCK_FLAGS) pyproject.toml --extra dev -o requirements/dev.txt
	$(UV_COMPILE) $(LOCK_FLAGS) pyproject.toml -c requirements/dev.txt -o requirements/runtime.txt
	$(UV_COMPILE) $(LOCK_FLAGS) requirements/build.in -c requirements/dev.txt -o requirements/build.txt

lock-upgrade: LOCK_FLAGS := --upgrade
lock-upgrade: lock

$(VENV)/uv/bin/uv:
	$(PYTHON) -m venv $(VENV)/uv
	$(VENV)/uv/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

demo: $(STAMP)
	$(BIN)/python -m evalbot_dev.demo $(DEMO_ARGS)

# The suite on two processes (pytest-xdist), one a core of CI's machine (.ci/run and
# .ci/installed-smoke pass the same). Each module runs whole on one worker, with its shared
# servers (loadfile), and modules are handed out in collection order: the slow integration
# modules first, the many short unit modules last to even out the end (xdist's default order
# puts the modules with the most tests first). TEST_WORKERS=0 runs in this process.
TEST_WORKERS ?= 2
PARALLEL := -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

test: lint typecheck
	$(BIN)/pytest -q $(PARALLEL) -m "not soak and not image and not installed"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q $(PARALLEL) -m "not integration and not soak and not image"

integration: $(STAMP)
	$(BIN)/pytest -q $(PARALLEL) -m "integration and not installed"

# The wheel as users install it, in a fresh virtualenv, doing the user jobs (.ci/run runs it).
installed: $(STAMP)
	.ci/installed-smoke

# Builds the Dockerfile and runs docker-compose.yml without a Docker engine (root, Debian
# mirror and PyPI reachable): docs/deploy.md, "How the image is checked without Docker".
image: $(STAMP)
	$(BIN)/pytest -q -m image

bench: $(STAMP)
	for script in bench/*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
