# Two entry points for a fresh machine: `make study` (the main job) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: study test test-quick docs tutorial lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

## The main job: the embedded study at small scale (every preset under random, greedy,
## expert and ISMCTS play, the effect of each rule option, match equity), reports in
## reports/study-small.
study: $(STAMP)
	$(BIN)/scopa-sim study --scale small --seed 0 --out reports/study-small

## The test suite, then lint and type checks. On a fresh machine most of its time is numba
## compiling the kernels (25-60 s per big loop), so it runs on every core (pytest-xdist,
## at most 4 workers), and tests/conftest.py first compiles each kernel once, spread over
## the workers' number of processes (scopa_sim.sim.warm); the workers then load them all from
## numba's cache instead of compiling the same ones at once.
test: $(STAMP)
	$(BIN)/pytest -n auto --maxprocesses 4
	$(BIN)/ruff check scopa_sim cli tests benchmarks
	$(BIN)/ruff format --check scopa_sim cli tests benchmarks
	$(BIN)/mypy scopa_sim
	$(BIN)/lint-imports
	$(MAKE) docs

## The quick loop: the tests not marked slow (pyproject's markers: no subprocess, benchmark,
## browser, notebook or fingerprint test, none over ~2 s), on every core as in `make test`.
## Under 2 minutes on 2 cores once numba's cache is warm. No linters, no docs.
test-quick: $(STAMP)
	$(BIN)/pytest -m "not slow" -n auto --maxprocesses 4

## The documentation site (Sphinx, MyST Markdown; warnings are errors) into docs/_build/html.
docs: $(STAMP)
	rm -rf docs/_build docs/reference/generated
	$(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html

## The tutorial's outputs: run docs/tutorial.ipynb in a fresh kernel and write its outputs
## into it (the docs show them; tests/docs/test_tutorial.py fails while they are stale).
tutorial: $(STAMP)
	SCOPA_SIM_WRITE_TUTORIAL=1 $(BIN)/pytest tests/docs/test_tutorial.py -p no:xdist -q

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache docs/_build docs/reference/generated
