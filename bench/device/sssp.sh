#!/usr/bin/env bash
# One GPU session for SSSP on the device: the stepping operator's, SSSP's and APSP's tests on
# the real GPU, then the sssp suite (every method on the weighted set beside scipy's Dijkstra,
# the tiny call and rome99's all-pairs runs), each step bounded in time.
# Usage on a CUDA machine, from the repository root:  bash bench/device/sssp.sh OUT [STEPS]
# STEPS: comma-separated subset of tests,bench (default: both); seconds per step: TESTS_S,
# BENCH_S; GRAPHS and METHODS narrow the suite.
set -uo pipefail
out=${1:-results}; steps=${2:-tests,bench}
export FRONTIER_HYPOTHESIS_PROFILE=${FRONTIER_HYPOTHESIS_PROFILE:-default}
export FRONTIER_CACHE_DIR=${FRONTIER_CACHE_DIR:-/tmp/frontier-cache}
. "$(dirname "$0")/env.sh"
step tests "${TESTS_S:-240}" python3 -m pytest -q -p no:cacheprovider -n "${TEST_WORKERS:-14}" \
  -rfE tests/operators/test_stepping.py tests/algorithms/test_sssp.py tests/algorithms/test_apsp.py
step bench "${BENCH_S:-400}" python3 -m bench sssp --target cuda --runs 5 --budget 30 --calls \
  --graphs "${GRAPHS:-weighted}" --methods "${METHODS:-bellman_ford,ordered,delta_stepping,near_far,rho_stepping,harish}" \
  --out "$out"
exit $status
