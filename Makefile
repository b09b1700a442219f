# The two commands of the README. Both install everything into .venv first (idempotent).
#   make run   -> snakemake --cores all on config.yaml (the demo corpus, offline)
#   make test  -> the test suite
VENV ?= .venv
PY := $(VENV)/bin/python
SNAKEMAKE_ARGS ?=

.PHONY: run test install

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv "$(VENV)"
	"$(PY)" -m pip install --quiet --upgrade pip
	"$(PY)" -m pip install --quiet -e ".[test]"
	touch "$@"

run: install
	"$(VENV)/bin/snakemake" --cores all $(SNAKEMAKE_ARGS)

test: install
	"$(VENV)/bin/pytest" -q
