#!/usr/bin/env bash
# One GPU session for the DSL issue (24): the test suite of the algorithms, operators and
# frontier packages (and the NetworkX backend's per-target tests) on the real GPU, then the
# structure suite (triangles, MIS, colouring, SCC against the references, NetworkX and scipy)
# and the first-call and tiny-call costs of the four algorithms, each bounded in time so the
# whole call fits the device tool's 10-minute limit.
# Usage on a CUDA machine, from the repository root:  bash bench/device/dsl.sh OUT [STEPS]
# STEPS: comma-separated subset of tests,structure,calls (default: all); seconds per step:
# TESTS_S, STRUCTURE_S, CALLS_S; TEST_WORKERS (default 14).
set -uo pipefail
out=${1:-results}; steps=${2:-tests,structure,calls}
export FRONTIER_HYPOTHESIS_PROFILE=${FRONTIER_HYPOTHESIS_PROFILE:-default}
export FRONTIER_CACHE_DIR=${FRONTIER_CACHE_DIR:-/tmp/frontier-cache}
. "$(dirname "$0")/env.sh"
step tests "${TESTS_S:-300}" python3 -m pytest -q -p no:cacheprovider -n "${TEST_WORKERS:-14}" \
  -rfE tests/algorithms tests/operators tests/frontier tests/frontier_nx/test_targets.py \
  tests/frontier_nx/test_clustering.py
step structure "${STRUCTURE_S:-170}" python3 -m bench structure --target cuda --runs 5 \
  --out "$out"
step calls "${CALLS_S:-90}" python3 -m bench calls --target cuda --parts first,tiny \
  --algorithms triangles,mis,coloring,scc --tiny-calls 50 --out "$out"
exit $status
