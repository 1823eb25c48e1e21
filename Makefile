# The two commands of the README, plus a few helpers. Needs Python 3.11+ as python3.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint format e2e-deps

run: $(VENV)/.base-installed
	$(BIN)/python -m clapilot.launcher

test: $(VENV)/.dev-installed
	$(BIN)/pytest $(PYTEST_ARGS)

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/python manage.py makemigrations --check --dry-run

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
