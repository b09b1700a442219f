# The two commands of the README. Both install everything into .venv first (idempotent).
#   make run   -> snakemake --cores all on config.yaml (the demo corpus, offline)
#   make test  -> the test suite (it includes the checks of make lint: tests/test_style.py)
#   make test-quick -> the same without its 15 workflow tests (pytest -m "not slow"): the inner loop while editing
#   make lint  -> ruff check, ruff format --check, snakefmt --check, snakemake --lint
#   make test-slurm -> the demo through a single-node SLURM (profiles/slurm, installed and started here with
#                  apt-get when missing: needs root) vs a local run: scores and tables byte-identical
#   make format -> ruff format, snakefmt (then commit the formatting alone)
VENV ?= .venv
PY := $(VENV)/bin/python
SNAKEMAKE_ARGS ?=

.PHONY: run test test-quick test-slurm install lint format

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv "$(VENV)"
	"$(PY)" -m pip install --quiet --upgrade pip
	"$(PY)" -m pip install --quiet -e ".[test]"
	touch "$@"

run: install
	"$(VENV)/bin/snakemake" --cores all $(SNAKEMAKE_ARGS)

test: install
	"$(VENV)/bin/pytest" -q -n 2 --dist worksteal

test-quick: install
	"$(VENV)/bin/pytest" -q -n 2 --dist worksteal -m "not slow"

test-slurm: install
	tests/slurm/demo.sh

lint: install
	"$(VENV)/bin/ruff" check .
	"$(VENV)/bin/ruff" format --check .
	"$(VENV)/bin/snakefmt" --check Snakefile rules
	"$(VENV)/bin/snakemake" --lint

format: install
	"$(VENV)/bin/ruff" format .
	"$(VENV)/bin/snakefmt" Snakefile rules
