# Everything runs inside .venv, created on first use. The stamp files record which requirement
# files were installed, so pip only runs again after one of them changes.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-requirements
DEV_STAMP := $(VENV)/.installed-requirements-dev
BENCH_STAMP := $(VENV)/.installed-requirements-bench
# Optional extra tools for bench/ (e.g. a reference implementation to compare against).
BENCH_REQUIREMENTS := $(wildcard requirements-bench.txt)
PIP_INSTALL := $(BIN)/python -m pip install --disable-pip-version-check

.PHONY: run test lint format bench clean-venv

run: $(RUN_STAMP)
	$(BIN)/python bot.py

test: $(DEV_STAMP)
	$(BIN)/python -m pytest

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(DEV_STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Runs every script in bench/ (they print their own figures); _*.py are helpers, not scripts.
bench: $(if $(BENCH_REQUIREMENTS),$(BENCH_STAMP),$(DEV_STAMP))
	@for script in bench/*.py; do \
		[ -e "$$script" ] || continue; \
		case "$${script##*/}" in _*) continue ;; esac; \
		echo "== $$script"; \
		PYTHONPATH=. $(BIN)/python "$$script" || exit 1; \
	done

clean-venv:
	rm -rf $(VENV)

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "error: Python 3.11 or newer is required ($(PYTHON) is too old)" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): requirements.txt | $(BIN)/python
	$(PIP_INSTALL) -r requirements.txt
	touch $@

# requirements-dev.txt includes requirements.txt, so this also satisfies the run stamp.
$(DEV_STAMP): requirements.txt requirements-dev.txt | $(BIN)/python
	$(PIP_INSTALL) -r requirements-dev.txt
	touch $@ $(RUN_STAMP)

# requirements-bench.txt includes requirements-dev.txt.
$(BENCH_STAMP): requirements.txt requirements-dev.txt $(BENCH_REQUIREMENTS) | $(BIN)/python
	$(PIP_INSTALL) -r requirements-bench.txt
	touch $@ $(DEV_STAMP) $(RUN_STAMP)
