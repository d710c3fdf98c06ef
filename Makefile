# Everything runs inside .venv, created on first use. The stamp files record which lock files
# were installed, so pip only runs again after one of them changes. Every install is from a
# pip-compile lock with hashes (requirements*.txt, generated from requirements*.in by `make lock`).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-requirements
BUILD_STAMP := $(VENV)/.installed-requirements-build
DEV_STAMP := $(VENV)/.installed-requirements-dev
BENCH_STAMP := $(VENV)/.installed-requirements-bench
PIP_INSTALL := $(BIN)/python -m pip install --disable-pip-version-check --require-hashes
# The locks in the order they build on each other: each .in is constrained (-c) by the locks
# before it, so a package shared by two locks has one version everywhere.
LOCKS := requirements.txt requirements-build.txt requirements-dev.txt requirements-bench.txt
# One fixed command line, so a lock comes out the same wherever it is generated; the machine's
# own pip index and find-links settings never end up in a lock.
PIP_COMPILE_FLAGS := --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links --newline=lf
export CUSTOM_COMPILE_COMMAND := make lock

.PHONY: run test test-fast demo play lint format bench bench-smoke lock check-locks clean-venv \
	fast-engine clean-fast-engine

# The compiled engine (README, "A faster engine"): `make fast-engine` builds it and fails if it
# cannot; run, test, test-fast, demo and play build it first when they can (mypyc from the
# build lock, and a working C compiler) and otherwise go on with the pure-Python engine, saying
# so in one line, as they do with BG_PURE_ENGINE=1. An up-to-date build is kept (a check of
# well under a second). `make clean-fast-engine` removes it.
FAST_ENGINE_IF_POSSIBLE = $(BIN)/python tools/build_fast_engine.py --if-possible \
	|| echo "fast engine: not built; the engine runs as Python"

run: $(BUILD_STAMP)
	@$(FAST_ENGINE_IF_POSSIBLE)
	$(BIN)/python bot.py

# A computer-vs-computer game without Discord: boards, replay.gif and record.txt in demo/VARIANT
# (e.g. `make demo VARIANT=pin`; LEVEL, SEED and OUT, the folder, too).
VARIANT ?= classic
LEVEL ?= intermediate
demo: $(BUILD_STAMP)
	@$(FAST_ENGINE_IF_POSSIBLE)
	$(BIN)/python demo.py --variant $(VARIANT) --level $(LEVEL) $(if $(SEED),--seed $(SEED)) \
		$(if $(OUT),--out "$(OUT)")

# A game against the computer in this terminal, no Discord and no token (e.g. `make play
# VARIANT=pin`; LEVEL, LENGTH (match length) and SEED too; IMAGES=DIR writes the board picture
# there after each turn; DB=FILE keeps the game, otherwise it lives in a temporary database).
play: $(BUILD_STAMP)
	@$(FAST_ENGINE_IF_POSSIBLE)
	$(BIN)/python terminal.py --variant $(VARIANT) --level $(LEVEL) $(if $(LENGTH),--length $(LENGTH)) \
		$(if $(SEED),--seed $(SEED)) $(if $(IMAGES),--images "$(IMAGES)") $(if $(DB),--db "$(DB)")

test: $(DEV_STAMP)
	@$(FAST_ENGINE_IF_POSSIBLE)
	$(BIN)/python -m pytest

# The quick unit suite (under a minute): everything but the tests marked slow (end-to-end
# through the fake Discord, self-play, worker processes). CI and `make test` run everything.
test-fast: $(DEV_STAMP)
	@$(FAST_ENGINE_IF_POSSIBLE)
	$(BIN)/python -m pytest -m "not slow"

fast-engine: $(BUILD_STAMP)
	$(BIN)/python tools/build_fast_engine.py

clean-fast-engine:
	rm -rf build/fast-engine build/fast-engine-work

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(DEV_STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Runs every benchmark module in bench/ as `python -m bench.NAME` (so none can shadow a package
# of the project); they print their own figures. _*.py are helpers, not benchmarks.
BENCH_LOOP = for script in bench/*.py; do \
		name=$${script\#\#*/}; name=$${name%.py}; \
		case "$$name" in _*) continue ;; esac; \
		echo "== python -m bench.$$name $(1)"; \
		$(BIN)/python -m "bench.$$name" $(1) || exit 1; \
	done

bench: $(BENCH_STAMP)
	@$(call BENCH_LOOP,$(BENCH_ARGS))

# Every benchmark once with --smoke (tiny inputs, seconds each), as CI does so none can rot.
# Needs only the development lock (a benchmark skips what requirements-bench.txt would add).
bench-smoke: $(DEV_STAMP)
	@$(call BENCH_LOOP,--smoke)

# Regenerates every lock from its .in file, keeping the current pin of every package whose
# requirements did not change. Run it after editing a requirements*.in file and commit the .in
# and the locks together. A deliberate upgrade: `make lock LOCK_ARGS=--upgrade` (everything) or
# `make lock LOCK_ARGS='--upgrade-package NAME'`.
lock: $(DEV_STAMP)
	@for lock in $(LOCKS); do \
		echo "== $$lock"; \
		$(BIN)/pip-compile $(PIP_COMPILE_FLAGS) $(LOCK_ARGS) \
			--output-file "$$lock" "$${lock%.txt}.in" || exit 1; \
	done

# Fails when a lock is not what `make lock` would generate from its .in file: recompiles copies
# of the inputs and locks in a scratch directory and compares, ignoring the header comment and
# the hash lines (PyPI may add a wheel, and so a hash, to an old release at any time).
check-locks: $(DEV_STAMP)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	cp requirements*.in $(LOCKS) "$$tmp" && \
	compiler=$(abspath $(BIN))/pip-compile && \
	strip() { sed -e '1,/^[^#]/{/^#/d}' -e '/^ *--hash=/d' "$$1"; } && \
	stale=0 && \
	for lock in $(LOCKS); do \
		(cd "$$tmp" && "$$compiler" $(PIP_COMPILE_FLAGS) --output-file "$$lock" "$${lock%.txt}.in") \
			|| exit 1; \
		strip "$$lock" > "$$tmp/committed" && strip "$$tmp/$$lock" > "$$tmp/generated" && \
		if diff -u --label "$$lock (committed)" --label "$$lock (from $${lock%.txt}.in)" \
			"$$tmp/committed" "$$tmp/generated"; then \
			echo "$$lock is up to date with $${lock%.txt}.in"; \
		else \
			echo "error: $$lock is out of date with $${lock%.txt}.in: run 'make lock' and commit both" >&2; \
			stale=1; \
		fi; \
	done; \
	exit $$stale

clean-venv:
	rm -rf $(VENV)

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "error: Python 3.11 or newer is required ($(PYTHON) is too old)" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): requirements.txt | $(BIN)/python
	$(PIP_INSTALL) -r requirements.txt
	touch $@

# The build tools (mypyc) go on top of the runtime lock; this also satisfies the run stamp.
$(BUILD_STAMP): requirements.txt requirements-build.txt | $(BIN)/python
	$(PIP_INSTALL) -r requirements.txt -r requirements-build.txt
	touch $@ $(RUN_STAMP)

# The development lock goes on top of the runtime lock and holds every build tool; this also
# satisfies the run and build stamps.
$(DEV_STAMP): requirements.txt requirements-build.txt requirements-dev.txt | $(BIN)/python
	$(PIP_INSTALL) -r requirements.txt -r requirements-build.txt -r requirements-dev.txt
	touch $@ $(RUN_STAMP) $(BUILD_STAMP)

$(BENCH_STAMP): $(LOCKS) | $(BIN)/python
	$(PIP_INSTALL) $(addprefix -r ,$(LOCKS))
	touch $@ $(DEV_STAMP) $(BUILD_STAMP) $(RUN_STAMP)
