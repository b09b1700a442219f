# The two commands of the README. Both install everything into .venv first (idempotent).
#   make run   -> snakemake --cores all on config.yaml (the demo corpus, offline); SNAKEMAKE_ARGS="--configfile
#                 configs/yelp.yaml" for another run. It ends by naming the leaderboard, the results and the report
#   make report -> results/report.html, the report of the last make run (its SNAKEMAKE_ARGS, kept in
#                 results/.make_run_args; or give SNAKEMAKE_ARGS again)
#   make test  -> the test suite (it includes the checks of make lint: tests/test_style.py)
#   make test-quick -> the same without its workflow runs and longer trainings (pytest -m "not slow", 62 of them): the inner loop while editing
#   make lint  -> ruff check, ruff format --check, snakefmt --check, snakemake --lint
#   make test-slurm -> the demo through a single-node SLURM (profiles/slurm, installed and started here with
#                  apt-get when missing: needs root) vs a local run: scores and tables byte-identical
#   make format -> ruff format, snakefmt (then commit the formatting alone)
#   make install-locked -> every package of requirements.lock into $(VENV), without the package itself: .ci/run
#                  fills its second venv (Python 3.13) so beside the first's install
VENV ?= .venv
PY := $(VENV)/bin/python
SNAKEMAKE_ARGS ?=

LAST_RUN_ARGS := results/.make_run_args
PYTHON ?= python3
# torch's CPU build (a 190 MB wheel, 750 MB installed; PyPI's Linux wheel is the CUDA build, GBs with its nvidia-*
# wheels) on a machine without an NVIDIA driver (no nvidia-smi); with one, PyPI's CUDA build. An index that cannot
# be reached makes pip warn, retry for ~10 s and go on with the indexes it can reach.
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
TORCH_INDEX := $(if $(shell command -v nvidia-smi 2>/dev/null),,--extra-index-url $(TORCH_CPU_INDEX))

.PHONY: run report test test-quick test-slurm install install-locked lint format

install: $(VENV)/.installed

# The venv, pip and torch. torch first, alone (--no-deps: its dependencies come with the rest), so that the CPU
# index is asked for torch only
define venv_with_torch
	"$(PYTHON)" -m venv "$(VENV)"
	"$(PY)" -m pip install --quiet --upgrade pip
	"$(PY)" -m pip install --quiet -c requirements.lock --no-deps $(TORCH_INDEX) torch
endef

# The tested versions (requirements.lock, as constraints), the workflow and the test tools
$(VENV)/.installed: pyproject.toml requirements.lock
	$(venv_with_torch)
	"$(PY)" -m pip install --quiet -c requirements.lock -e ".[workflow,test]"
	touch "$@"

# Every package of requirements.lock, without the package itself: nothing is built in this folder (an editable
# install writes tst_pipeline.egg-info and build/ here), so it runs beside another venv's install. .ci/run fills
# its Python 3.13 venv so while the first venv installs and the suite runs; make install then adds the package
install-locked:
	$(venv_with_torch)
	"$(PY)" -m pip install --quiet -r requirements.lock

run: install
	mkdir -p results && printf '%s\n' '$(SNAKEMAKE_ARGS)' > "$(LAST_RUN_ARGS)"
	"$(VENV)/bin/snakemake" --cores all $(SNAKEMAKE_ARGS)

report:
	"$(VENV)/bin/snakemake" --cores all $(or $(SNAKEMAKE_ARGS),$(shell cat "$(LAST_RUN_ARGS)" 2>/dev/null)) --report results/report.html

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
