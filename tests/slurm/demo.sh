#!/usr/bin/env bash
# make test-slurm: the demo (config.yaml) through a single-node SLURM with `snakemake --profile profiles/slurm` and
# no other flag (unless TST_SLURM_POLL below), then locally (`snakemake --cores 2`), each in its own folder; the
# scores and tables of the two runs must be byte-identical (the evaluators are compared too). Prints the SLURM
# run's wall time, its number of submissions (sbatch calls) and rule jobs, and every differing file.
#   TST_SLURM_WORK=dir     where the two runs go (default: a new /tmp/tst-slurm-demo.* folder, kept)
#   TST_SLURM_CONFIG=file  the config both runs read (default: the repository's config.yaml, the demo); the
#                          test suite passes its tiny config (tests/conftest.py) with TST_LOCAL_RUN = its run
#   TST_SLURM_WORKFLOW=dir the copy of the workflow (Snakefile, rules, profiles ...) the SLURM run starts from
#                          (default: this repository); the test suite passes another copy (tests/conftest.py)
#   TST_LOCAL_RUN=dir      reuse a finished local run of that config in dir (its results/demo) instead of running one
#   TST_SLURM_POLL=s       first status check s seconds after a submission (the plugin's default: 40; then +10 s
#                          per check that finds no job finished, at most 180): the test suite passes 5
#   TST_SLURM_TIMEOUT=s    stop the SLURM run after s seconds (default 3600): a run that cannot see its jobs'
#                          states waits forever
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
SNAKEMAKE="$REPO/.venv/bin/snakemake"
WORK="${TST_SLURM_WORK:-$(mktemp -d /tmp/tst-slurm-demo.XXXXXX)}"
CONFIG="${TST_SLURM_CONFIG:-$REPO/config.yaml}"
WORKFLOW="${TST_SLURM_WORKFLOW:-$REPO}"
COMPARED=(scores tables evaluators)
REQUIRED=(scores tables)

log() { printf '%s\n' "demo.sh: $*" >&2; }

"$REPO/tests/slurm/cluster.sh" start
mkdir -p "$WORK/slurm" "$WORK/local"
log "runs in $WORK, config $CONFIG, workflow $WORKFLOW"

cp "$CONFIG" "$WORK/slurm/config.yaml"
poll=()
if [ -n "${TST_SLURM_POLL:-}" ]; then
    poll=(--slurm-init-seconds-before-status-checks "$TST_SLURM_POLL")
fi
start=$(date +%s)
if ! (cd "$WORK/slurm" && timeout "${TST_SLURM_TIMEOUT:-3600}" \
    "$SNAKEMAKE" -s "$WORKFLOW/Snakefile" --profile "$WORKFLOW/profiles/slurm" "${poll[@]}") >"$WORK/slurm.log" 2>&1; then
    tail -n 40 "$WORK/slurm.log" >&2
    log "the SLURM run failed or timed out; its log: $WORK/slurm.log"
    exit 1
fi
seconds=$(($(date +%s) - start))
submissions=$(grep -c 'has been submitted with SLURM jobid' "$WORK/slurm.log" || true)
steps=$(grep -o '[0-9]* of [0-9]* steps (100%) done' "$WORK/slurm.log" | tail -n 1 | cut -d' ' -f1)
account_warnings=$(grep -c 'No SLURM account given' "$WORK/slurm.log" || true)

if [ -n "${TST_LOCAL_RUN:-}" ]; then
    local_run="$TST_LOCAL_RUN"
    # the suite's shared local run (tests/conftest.py finished_run) marks itself done with "<dir>.done"; wait
    # for it where another worker is still running it (at most TST_SLURM_TIMEOUT, default 3000 s)
    if [ -n "${PYTEST_XDIST_WORKER:-}${PYTEST_CURRENT_TEST:-}" ] || [ -e "$local_run.lock" ]; then
        waited=0
        while [ ! -e "$local_run.done" ] && [ "$waited" -lt "${TST_SLURM_TIMEOUT:-3000}" ]; do
            sleep 5
            waited=$((waited + 5))
        done
        [ -e "$local_run.done" ] || { log "the local run in $local_run did not finish"; exit 1; }
    fi
else
    local_run="$WORK/local"
    cp "$CONFIG" "$local_run/config.yaml"
    log "local run"
    if ! (cd "$local_run" && "$SNAKEMAKE" -s "$REPO/Snakefile" --cores 2) >"$WORK/local.log" 2>&1; then
        tail -n 40 "$WORK/local.log" >&2
        log "the local run failed; its log: $WORK/local.log"
        exit 1
    fi
fi

status=0
for folder in "${COMPARED[@]}"; do
    if [ -d "$local_run/results/demo/$folder" ] && [ -d "$WORK/slurm/results/demo/$folder" ]; then
        differing="$(diff -r -q "$local_run/results/demo/$folder" "$WORK/slurm/results/demo/$folder" || true)"
        files=$(find "$local_run/results/demo/$folder" -type f | wc -l)
    else
        differing="results/demo/$folder is missing from one of the runs"
    fi
    if [ -z "$differing" ]; then
        log "results/demo/$folder: $files files, byte-identical"
    else
        log "results/demo/$folder differs:"
        printf '%s\n' "$differing" >&2
        if [[ " ${REQUIRED[*]} " == *" $folder "* ]]; then
            status=1
        fi
    fi
done
log "SLURM run: $((seconds / 60)) min $((seconds % 60)) s, $submissions submissions for $steps jobs," \
    "$account_warnings account warning(s); logs in $WORK"
exit "$status"
