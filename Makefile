# The two commands of the README: `make run` (install, then start the server with the default
# bots) and `make test` (install everything the tests need, then run the whole suite).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: system-deps system-deps-test install install-test warm run test lint clean

# Debian packages: Node.js and npm for the browser client's library; for the tests also
# Chromium (browser tests) and docker-compose (validates docker-compose.yml). Only what is missing.
system-deps:
	scripts/install-system-deps
system-deps-test:
	scripts/install-system-deps --test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

node_modules/.installed: package.json package-lock.json | system-deps
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

install: $(VENV)/.installed node_modules/.installed

install-test: system-deps-test install $(VENV)/.installed-test

# Compile every numba kernel once, so no process races to write the cache and no clock waits.
warm: install
	$(BIN)/arbiter warm

run: install warm
	$(BIN)/arbiter up

lint: install-test
	$(BIN)/ruff check arbiter tests benchmarks examples

test: install-test warm lint
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) node_modules .numba_cache .pytest_cache .hypothesis
