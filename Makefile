# cardroom: every target does its own set-up (virtualenv, install, Redis).
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PYTEST_ARGS ?=

.PHONY: install serve test test-fast lint bench demo lock clean

# The suite starts hundreds of Python processes (servers, workers, the CLI): let
# them keep the modules they compile, and pytest its rewritten test modules,
# rather than compile everything again in each, wherever the environment says not to.
unexport PYTHONDONTWRITEBYTECODE

$(STAMP): pyproject.toml client/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	# the client package (its own distribution, see client/) and its cardroom-bot command
	$(BIN)/python -m pip install -q -e ./client
	touch $(STAMP)

install: $(STAMP)

## Run the service on its embedded default (its own redis-server on ~/.local/share/cardroom,
## or an in-process fake Redis without redis-server; an in-process worker).
serve: install
	$(BIN)/cardroom serve

## Run the whole test suite (starts Redis on 127.0.0.1:6379 if none answers,
## installs Debian's headless Chromium for the browser tests, nginx for the
## slow-client and metrics tests and promtool for the alert rules if they are missing). It runs in parallel workers, each on
## a redis-server of its own; PYTEST_ARGS=-n0 runs it in one process on that Redis.
test: install
	sh tests/ensure-redis.sh
	sh tests/ensure-chromium.sh
	sh tests/ensure-cli-tools.sh
	sh tests/ensure-nginx.sh
	sh tests/ensure-promtool.sh
	$(BIN)/python -m pytest --durations=25 $(PYTEST_ARGS)

## The unit tests only, on fakeredis (no Redis needed).
test-fast: install
	$(BIN)/python -m pytest -m "not redis and not slow and not stats and not browser and not cluster" $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## Benchmarks print figures; see bench/README.md.
bench: install
	sh tests/ensure-redis.sh
	sh tests/ensure-nginx.sh
	$(BIN)/python -m bench

demo: install
	$(BIN)/cardroom demo

## Refresh deploy/requirements.lock, the image's dependencies pinned with their hashes
## (pyproject.toml's [project].dependencies and the s3 extra, for Linux and Python 3.11).
## It keeps the pins it has; LOCK_ARGS=--upgrade takes the newest releases,
## LOCK_ARGS='--upgrade-package rq' one package's. See docs/operations.md.
lock: install
	$(BIN)/uv pip compile pyproject.toml --extra s3 --generate-hashes \
		--python-version 3.11 --python-platform linux --annotation-style line \
		--custom-compile-command 'make lock' $(LOCK_ARGS) -o deploy/requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
