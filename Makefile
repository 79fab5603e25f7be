# make serve  - set up, build the site, serve it at http://127.0.0.1:8000/
# make test   - set up everything on a fresh machine, lint (ruff), then run every test
# make test-fast - unit, property and in-Pyodide unit tests only (no site build, no browser)
# make bench  - print the benchmarks' figures (speed, Lighthouse performance)
# make build  - write the static site to site/
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# Extra pip flags, e.g. PIP_TORCH_INDEX="--extra-index-url https://download.pytorch.org/whl/cpu" on GitHub runners.
PIP_TORCH_INDEX ?=
PORT ?= 8000
# pytest-xdist workers for `make test`: one per CPU core by default. worksteal: a
# worker that runs out of tests takes queued ones from the other, so the run does
# not end with one worker idle while the other works through its queue.
TEST_WORKERS ?= auto
XDIST := -n $(TEST_WORKERS) --dist worksteal

.PHONY: setup setup-docs setup-test build serve lint test test-fast bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(VENV)/.docs-stamp: requirements/docs.txt requirements/constraints.txt | $(VENV)/bin/python
	$(PIP) install -q -r requirements/docs.txt -c requirements/constraints.txt
	touch $@

$(VENV)/.test-stamp: requirements/test.txt requirements/docs.txt requirements/constraints.txt | $(VENV)/bin/python
	$(PIP) install -q $(PIP_TORCH_INDEX) torch==2.13.0
	$(PIP) install -q -r requirements/test.txt -c requirements/constraints.txt
	touch $@ $(VENV)/.docs-stamp

node_modules/.stamp: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

setup-docs: $(VENV)/.docs-stamp node_modules/.stamp
setup-test: $(VENV)/.test-stamp node_modules/.stamp
setup: setup-test

build: setup-docs
	$(PY) -m mkdocs build --strict

serve: build
	@echo "Serving site/ at http://127.0.0.1:$(PORT)/"
	$(PY) -m http.server --directory site --bind 127.0.0.1 $(PORT)

# The lint gate: a short rule set of real defects (pyproject.toml [tool.ruff]), in
# a second, then the types of calculator/ and sitegen/ ([tool.mypy]), before the suites' minutes.
lint: setup-test
	$(VENV)/bin/ruff check --no-cache .
	$(VENV)/bin/mypy

# One site build shared by every suite (tests/conftest.py: built_site); the
# suites run on TEST_WORKERS processes, and work every worker needs (the site
# build, the Pyodide assets) is done once per run by the first to ask (tests/once.py).
test: setup-test lint
	$(PY) -m pytest $(XDIST)

test-fast: setup-test
	$(PY) -m pytest $(XDIST) tests/unit tests/properties tests/pyodide/test_unit_in_pyodide.py

bench: setup-test
	$(PY) benchmarks/engine_speed.py
	$(PY) benchmarks/calculator_page.py
	$(PY) benchmarks/lighthouse.py

clean:
	rm -rf site .pytest_cache .hypothesis
