# The two commands of the README, plus a few helpers. Needs Python 3.11+ as python3.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint format e2e-deps mypy-baseline bench

run: $(VENV)/.base-installed
	$(BIN)/python -m clapilot.launcher

# One pytest run, the browser tests (tests/e2e, marker e2e) included, in three pytest-xdist workers
# (one test database each). Three on two cores: many tests wait on a worker, daphne, the browser
# or a lease, and a third worker fills that time (on the 2-core machine 3,020 tests took 292 s with
# two workers, 236 s with three). The browser tests used to run serially after the rest (12 of the
# 22 minutes); spread over the workers they fill the others' waits (issue #28).
PYTEST_WORKERS ?= 3

# Bytecode is kept for the tests: where PYTHONDONTWRITEBYTECODE is set (this machine sets it), every
# worker and every server or command a test starts compiled the whole project again.
test: export PYTHONDONTWRITEBYTECODE =
test: $(VENV)/.dev-installed
	$(BIN)/pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

# A bench of bench/ (it needs the dev packages): make bench B=load ARGS="--clients 10 --duration 20";
# ARGS=--tiny runs any of them in seconds (tests/core/test_benches.py does so for every one).
bench: export PYTHONDONTWRITEBYTECODE =
bench: $(VENV)/.dev-installed
	@test -n "$(B)" || { echo "Which bench? make bench B=<name>, one of: $$(cd bench && ls [a-z]*.py | sed 's/\.py//' | tr '\n' ' ')"; exit 2; }
	$(BIN)/python bench/$(B).py $(ARGS)

# lint-imports checks the [tool.importlinter] contracts of pyproject.toml (skipped until they exist);
# mypy runs against its committed baseline (scripts/mypy_baseline.py, [tool.mypy] in pyproject.toml).
lint: $(VENV)/.dev-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python manage.py makemigrations --check --dry-run
	@if grep -q '^\[tool\.importlinter\]' pyproject.toml; then $(BIN)/lint-imports; \
	else echo "lint-imports: no [tool.importlinter] contracts in pyproject.toml yet, skipped"; fi
	$(BIN)/python scripts/mypy_baseline.py

# After fixing type errors: drop them from mypy-baseline.txt (it may only shrink).
mypy-baseline: $(VENV)/.dev-installed
	$(BIN)/python scripts/mypy_baseline.py --update

format: $(VENV)/.dev-installed
	$(BIN)/ruff format . && $(BIN)/ruff check --fix .

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Clapilot needs Python 3.11 or newer.")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.base-installed: requirements/base.txt pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -r requirements/base.txt
	$(BIN)/pip install -q --no-deps -e .
	touch $@

$(VENV)/.dev-installed: requirements/dev.txt $(VENV)/.base-installed
	$(BIN)/pip install -q -r requirements/dev.txt
	touch $@
