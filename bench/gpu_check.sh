#!/usr/bin/env bash
# The GPU check: what this project's training and evaluators get from a GPU, and whether its CUDA paths are right.
#
#   bench/gpu_check.sh [--data DIR] [--device cuda|cpu] [more bench/gpu_check.py options]
#
# Needs only torch, numpy, pyyaml, sentencepiece and pytest (a bare CUDA image; no Snakemake), run from a checkout.
# Brings its own data: the demo corpus (tst.data.demo), or Shen et al.'s Yelp sentences with
# --data DIR (a folder holding sentiment.dev.0 and sentiment.dev.1, e.g. $TST_DATA_DIR/yelp/shen).
# Prints the device, per variant (M0, M2, M7) and precision (fp32, bf16) the ms per training step at paper size
# on the plain and the fast path and of the graphed step (transfer.cuda_graph; "needs CUDA" on a CPU) with the
# Shen-size Yelp epoch (4,184 steps) they give, the evaluators' training throughput, a 200-step comparison of
# the plain fp32 path's losses with the fast path's and the graphed step's, the aggregate and each
# training's updates/s of 1, 2, 4 and 8 concurrent M0, M2 and M7 trainings on the one GPU (also under CUDA MPS
# where nvidia-cuda-mps-control -d starts; a table, and results/gpu_check/rates.json for `tst cost`), then runs
# tests/models, tests/train, tests/test_device.py, tests/test_gpus.py and tests/test_gpu_share.py with CUDA
# visible (among them resume = uninterrupted training on CUDA, and the captured graphs' 200-step losses against
# the plain path's, tests/train/test_graph_step.py). Under 8 minutes on one GPU; on a CPU use small
# sizes, e.g.
#   bench/gpu_check.sh --device cpu --dims demo --steps 3 --compare-steps 20 --threads 1 --concurrency 1 2
# Its output is what docs/gpu.md's GPU table is made from. Exit status: non-zero when a check or test failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
PY="${PYTHON:-python}"
status=0
start=$SECONDS
echo "== measurements (bench/gpu_check.py $*)"
"$PY" bench/gpu_check.py "$@" || status=1
echo "== tests (CUDA visible: $("$PY" -c 'import torch; print(torch.cuda.is_available())'))"
"$PY" -m pytest tests/models tests/train tests/test_device.py tests/test_gpus.py tests/test_gpu_share.py -q \
    -p no:cacheprovider \
    --durations=5 || status=1
echo "== gpu_check: $([ $status = 0 ] && echo PASS || echo FAIL) in $((SECONDS - start)) s"
exit $status
