#!/usr/bin/env bash
# The test suite on a real GPU (no simulator: tests parametrized over targets run on `cpu` and on
# the GPU), spread over pytest-xdist workers that share the GPU, bounded in time.
# Usage on a CUDA machine, from the repository root: bash bench/device/tests.sh OUT_DIR [pytest args]
# GPU_TEST_SECONDS bounds the run (default 540), GPU_TEST_WORKERS sets the workers (default 8).
set -uo pipefail
out=${1:-results}; shift || true
. "$(dirname "$0")/env.sh"
export FRONTIER_HYPOTHESIS_PROFILE=${FRONTIER_HYPOTHESIS_PROFILE:-default}
export FRONTIER_CACHE_DIR=${FRONTIER_CACHE_DIR:-/tmp/frontier-cache}
python3 -c "import numba, numba.cuda as c, numpy; print('numba', numba.__version__, 'numpy', numpy.__version__, 'cuda available', c.is_available())" | tee -a "$out/device.txt"
timeout "${GPU_TEST_SECONDS:-540}" python3 -m pytest -q -p no:cacheprovider -n "${GPU_TEST_WORKERS:-8}" \
  --durations=25 "${@:-tests}" > "$out/pytest-gpu.txt" 2>&1
rc=$?
tail -60 "$out/pytest-gpu.txt"
echo "pytest exit $rc"
exit $rc
