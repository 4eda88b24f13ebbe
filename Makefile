# Two entry points for a fresh machine: `make study` (the main job) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: study test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

## The main job: first-player advantage under random self-play (1M hands) and greedy play.
study: $(STAMP)
	$(BIN)/scopa-sim advantage --preset scopa --policy random --hands 1000000 --seed 2026
	$(BIN)/scopa-sim advantage --preset scopa --policy greedy --hands 200000 --seed 2026

## The test suite, then lint and type checks.
test: $(STAMP)
	$(BIN)/pytest -q
	$(BIN)/ruff check scopa_sim cli tests benchmarks
	$(BIN)/ruff format --check scopa_sim cli tests benchmarks
	$(BIN)/mypy scopa_sim

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
