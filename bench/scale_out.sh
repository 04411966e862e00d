#!/usr/bin/env bash
# Scale-out on a machine with two GPUs (nvidia-h200-x2): the two-GPU tests (BFS, SSSP and
# connected components through NCCL equal the references), then bench.scale_out (one GPU
# against two, R-MAT scales). Usage, from the repository root:
#   bash bench/scale_out.sh OUT [SCALES]        SCALES default 22,24,26
# SCALE_OUT_TESTS=0 skips the tests; GPU_TEST_SECONDS bounds them (default 300);
# ALGORITHMS picks the benchmark's algorithms (default bfs,bfs_do,cc).
# The machine has no Dask and no internet: carry .whl-dist/ (Dask, distributed, dask-cuda
# wheels for cp312, made with `pip download`, see docs/scale-out.md) and .whl/ (numpy < 2.5).
set -uo pipefail
out=${1:-results}; scales=${2:-22,24,26}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
wheels=(.whl-dist/*.whl)
if ls .whl/*.whl >/dev/null 2>&1; then wheels+=(.whl/*.whl); fi
python3 -m pip install -q --upgrade --no-index --no-deps --target /tmp/site "${wheels[@]}" \
  || exit 1
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/device.txt"
python3 - <<'PY' 2>&1 | tee -a "$out/device.txt"
import dask, distributed, numba, numpy
print("dask", dask.__version__, "distributed", distributed.__version__, "numba", numba.__version__,
      "numpy", numpy.__version__)
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
tests=0
if [ "${SCALE_OUT_TESTS:-1}" != 0 ]; then
  timeout "${GPU_TEST_SECONDS:-300}" python3 -m pytest -q -rs -p no:cacheprovider \
    tests/test_distributed.py -k two_gpus 2>&1 | tee "$out/pytest-scale-out.txt" | tail -15
  tests=${PIPESTATUS[0]}
fi
python3 -m bench.scale_out --workers gpu --parts 1,2 --scales "$scales" --out "$out" \
  --algorithms "${ALGORITHMS:-bfs,bfs_do,cc}" \
  2> >(grep -v 'distributed\.\|^ \|UserWarning\|Perhaps\|Hosting' >&2) | tee "$out/scale_out.log"
bench=${PIPESTATUS[0]}
echo "pytest exit $tests, bench exit $bench"
exit $(( tests != 0 || bench != 0 ))
