# The two commands of the README: `make run` (install, then start the server with the default
# bots) and `make test` (install everything the tests need, then run the whole suite).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: system-deps system-deps-test install install-test warm run test test-fast lint clean

# Debian packages: Node.js and npm for the browser client's library; for the tests also
# Chromium (browser tests), docker-compose (validates docker-compose.yml), and PostgreSQL and
# Redis (the tests start their own servers of both). Only what is missing.
system-deps:
	scripts/install-system-deps
system-deps-test:
	scripts/install-system-deps --test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The four parts (protocol/, engine/, server/, bots/) and the root `arbiter` distribution that joins
# them, all editable and in one pip call, so each part's dependency on another is met by its folder.
PARTS := protocol engine server bots
EDITABLE := $(foreach part,$(PARTS),-e ./$(part))
PYPROJECTS := pyproject.toml $(foreach part,$(PARTS),$(part)/pyproject.toml)

$(VENV)/.installed: $(PYPROJECTS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet $(EDITABLE) -e .
	touch $@

$(VENV)/.installed-test: $(PYPROJECTS) $(VENV)/.installed
	$(BIN)/python -m pip install --quiet $(EDITABLE) -e '.[test]'
	touch $@

# The browser client's one library (@msgpack/msgpack), beside the client in server/.
server/node_modules/.installed: server/package.json server/package-lock.json | system-deps
	cd server && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# TypeScript, for the checks only: it compile-checks the protocol's generated protocol.d.ts (the tests) and the
# browser client's modules against it (`make lint`, server/tsconfig.json).
protocol/node_modules/.installed: protocol/package.json protocol/package-lock.json | system-deps
	cd protocol && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The JavaScript starter kit's two packages (ws, @msgpack/msgpack): the suite plays it over a real server.
examples/js_kit/node_modules/.installed: examples/js_kit/package.json examples/js_kit/package-lock.json | system-deps
	cd examples/js_kit && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# axe-core, for the browser tests' accessibility audit only (tests/browser/test_browser_learning.py).
tests/browser/node_modules/.installed: tests/browser/package.json tests/browser/package-lock.json | system-deps
	cd tests/browser && npm ci --no-audit --no-fund --loglevel=error
	touch $@

install: $(VENV)/.installed server/node_modules/.installed

install-test: system-deps-test install $(VENV)/.installed-test protocol/node_modules/.installed \
	examples/js_kit/node_modules/.installed tests/browser/node_modules/.installed

# Compile every numba kernel once, so no process races to write the cache and no clock waits.
warm: install
	$(BIN)/arbiter warm

run: install warm
	$(BIN)/arbiter up

# ruff (rules and formatting) on every folder of code, mypy on every part, import-linter on the dependency
# rules between the parts (all configured in pyproject.toml), tsc on the browser client's modules.
lint: install-test
	$(BIN)/ruff check $(PARTS) src tests benchmarks examples
	$(BIN)/ruff format --check $(PARTS) src tests benchmarks examples
	$(BIN)/mypy
	$(BIN)/lint-imports
	protocol/node_modules/.bin/tsc -p server

# The suite in one pytest-xdist worker per core, at most four (xdist's own `auto` and `--maxprocesses`): two workers
# on two cores finish in 0.67 of one's time (docs/PERFORMANCE.md, "The test suite"). Every test starts its own
# servers on free ports, and each worker its own PostgreSQL and Redis, so no two workers share one; the tests of
# one xdist_group (the Docker engine's) run in one worker.
TEST_WORKERS ?= auto
PYTEST := $(BIN)/python -m pytest -n $(TEST_WORKERS) --maxprocesses=4 --dist loadgroup

test: install-test warm lint
	$(PYTEST)

# The inner loop: everything but the slow, browser and process tests (CI runs them all: `make test`).
test-fast: install-test warm
	$(PYTEST) -m "not slow and not browser and not process"

clean:
	rm -rf $(VENV) server/node_modules examples/js_kit/node_modules .numba_cache .pytest_cache .hypothesis
