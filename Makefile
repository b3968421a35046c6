# The two commands of the README: `make run` (install, then serve with the default bots) and
# `make test` (install everything the tests need, then run the whole suite).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache

.PHONY: install install-test run test warm clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

# npm brings the browser client's msgpack library; Debian brings Chromium and docker-compose.
node_modules/.installed: package.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

install-test: install node_modules/.installed
	scripts/install-system-deps

# Compile every numba kernel once, so no process races to write the cache and no clock waits.
warm: install
	$(BIN)/arbiter warm

run: install node_modules/.installed warm
	$(BIN)/arbiter serve

test: install-test warm
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .numba_cache .pytest_cache .hypothesis
