#!/usr/bin/env bash
# GPU run of list ranking and APSP: bench/listrank_apsp.py, then their tests on the real GPU.
# Usage on a CUDA machine, from the repository root:  bash bench/listrank_apsp.sh [OUT_DIR]
# Sets up numpy like bench/gpu.sh (a numpy 2.4 wheel in .whl/ is installed into /tmp/site).
set -uo pipefail
out=${1:-results}
export FRONTIER_HYPOTHESIS_PROFILE=${FRONTIER_HYPOTHESIS_PROFILE:-gpu}
. "$(dirname "$0")/gpu_env.sh"
python3 bench/listrank_apsp.py --out "$out" 2>&1 | tee "$out/listrank_apsp.log"
bench=${PIPESTATUS[0]}
python3 -m pytest -q -p no:cacheprovider tests/test_list_ranking.py tests/test_apsp.py \
  tests/test_tiles.py 2>&1 | tee "$out/pytest-listrank-apsp.txt" | tail -15
tests=${PIPESTATUS[0]}
echo "pytest exit $tests, bench exit $bench"
exit $(( tests != 0 || bench != 0 ))
