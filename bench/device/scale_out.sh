#!/usr/bin/env bash
# Scale-out on a machine with several GPUs (nvidia-h100-x2, -x4): optionally the tests on two and
# four GPUs (BFS, SSSP and connected components through NCCL equal the references; NCCL_TESTS
# picks them by -k, those needing more GPUs than the machine has skip), then the scale_out
# suite (one GPU against PARTS workers, default 1,2; R-MAT scales in the order given, most
# valuable first). Usage, from the repository root:
#   bash bench/device/scale_out.sh OUT [SCALES]        SCALES default 24,22,26
# SCALE_OUT_SECONDS bounds the whole script (default 460): the benchmark gets what the install
# and the tests left, less 25 s for its exit, skips the scales that would not fit and writes
# OUT/scale_out.{csv,md} after every row and OUT/phases.log as it goes, so a cut-short run keeps
# what it measured. SCALE_OUT_TESTS=0 skips the tests (default: run them, bounded by
# GPU_TEST_SECONDS, default 120); ALGORITHMS picks the benchmark's algorithms, in order
# (default bfs,cc,sssp: bfs_do also builds each piece's in-arc graph on the host first); RUNS the
# timed runs per row (default 5); FIT_DEMO the scale after whose rows BFS runs on devices limited
# (FRONTIER_MAX_DEVICE_BYTES) below the graph's arrays and above the larger half's: one device
# refuses it, two run it (default 22).
# The machine has no Dask and no internet: carry .whl-dist/ (Dask, distributed, dask-cuda
# wheels for cp312, made with `pip download`, see docs/scale-out.md) and .whl/ (numpy < 2.5).
set -uo pipefail
start=$SECONDS
budget=${SCALE_OUT_SECONDS:-460}
out=${1:-results}; scales=${2:-24,22,26}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
wheels=(.whl-dist/*.whl)
if ls .whl/*.whl >/dev/null 2>&1; then wheels+=(.whl/*.whl); fi
python3 -m pip install -q --upgrade --no-index --no-deps --target /tmp/site "${wheels[@]}" \
  || exit 1
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv \
  | tee "$out/device.txt"
python3 - <<'PY' 2>&1 | tee -a "$out/device.txt"
import os, dask, distributed, numba, numpy
print("dask", dask.__version__, "distributed", distributed.__version__, "numba", numba.__version__,
      "numpy", numpy.__version__, "cpus", os.cpu_count())
for name in ("dask_cuda", "cupy"):
    try:
        module = __import__(name)
        print(name, module.__version__)
    except Exception as e:  # report, the tests say what is missing
        print(name, "NOT AVAILABLE:", type(e).__name__, e)
try:
    from cupy.cuda import nccl
    print("nccl", nccl.get_version())
except Exception as e:
    print("nccl NOT AVAILABLE:", type(e).__name__, e)
PY
echo "[setup] $((SECONDS - start)) s: wheels installed, device listed" | tee "$out/script.log"
tests=0
if [ "${SCALE_OUT_TESTS:-1}" != 0 ]; then
  timeout -k 10 "${GPU_TEST_SECONDS:-120}" python3 -m pytest -q -rs -p no:cacheprovider \
    tests/algorithms/test_distributed.py -k "${NCCL_TESTS:-two_gpus or four_gpus}" 2>&1 | tee "$out/pytest-scale-out.txt" | tail -15
  tests=${PIPESTATUS[0]}
  echo "[tests] $((SECONDS - start)) s: exit $tests" | tee -a "$out/script.log"
fi
left=$(( budget - (SECONDS - start) ))
if [ "$left" -lt 60 ]; then
  echo "only $left s left of SCALE_OUT_SECONDS=$budget: no benchmark" | tee -a "$out/script.log"
  exit 1
fi
# the benchmark plans with 25 s less than it is given: the cluster's shutdown at exit
timeout -k 10 "$left" python3 -m bench scale_out --workers gpu --parts "${PARTS:-1,2}" --scales "$scales" \
  --out "$out" --algorithms "${ALGORITHMS:-bfs,cc,sssp}" --runs "${RUNS:-5}" \
  --budget $(( left - 25 )) --fit-demo "${FIT_DEMO:-22}" \
  2> >(grep --line-buffered -v 'distributed\.\|^ \|UserWarning\|Perhaps\|Hosting' >&2) \
  | tee "$out/scale_out.log"
bench=${PIPESTATUS[0]}
echo "[bench] $((SECONDS - start)) s: pytest exit $tests, bench exit $bench" \
  | tee -a "$out/script.log"
exit $(( tests != 0 || bench != 0 ))
