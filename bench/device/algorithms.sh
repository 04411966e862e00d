#!/usr/bin/env bash
# One GPU session for the algorithm families beyond BFS: their tests on the real GPU, then the
# sssp, listrank_apsp and components suites and a soak, each bounded in time so the whole call
# fits the device tool's 10-minute limit.
# Usage on a CUDA machine, from the repository root:  bash bench/device/algorithms.sh OUT [STEPS]
# STEPS: comma-separated subset of tests,sssp,listrank,components,soak (default: all).
# Seconds per step: TESTS_S, SSSP_S, LISTRANK_S, COMPONENTS_S, SOAK_S; TESTS overrides the test
# files; LISTRANK_ARGS (default --sizes 1e6,1e7,6.4e7) and COMPONENTS_ARGS add arguments to
# `python -m bench listrank_apsp` and `python -m bench components`.
set -uo pipefail
out=${1:-results}; steps=${2:-tests,sssp,listrank,components,soak}
export FRONTIER_HYPOTHESIS_PROFILE=${FRONTIER_HYPOTHESIS_PROFILE:-default}
. "$(dirname "$0")/env.sh"
tests=${TESTS:-$(ls tests/algorithms/test_sssp.py tests/operators/test_cull.py tests/algorithms/test_bfs_variants.py tests/algorithms/test_components.py \
  tests/algorithms/test_list_ranking.py tests/algorithms/test_apsp.py tests/operators/test_tiles.py tests/algorithms/test_centrality.py \
  tests/algorithms/test_nx_backend.py tests/operators/test_recovery.py tests/operators/test_adaptive.py 2>/dev/null)}
step tests "${TESTS_S:-240}" python3 -m pytest -q -x -p no:cacheprovider $tests
step sssp "${SSSP_S:-150}" python3 -m bench sssp --target cuda --runs 5 --out "$out"
step listrank "${LISTRANK_S:-150}" python3 -m bench listrank_apsp --out "$out" --runs 5 \
  ${LISTRANK_ARGS:---sizes 1e6,1e7,6.4e7}
step components "${COMPONENTS_S:-120}" python3 -m bench components --out "$out" ${COMPONENTS_ARGS:-}
step soak "${SOAK_S:-60}" python3 -m bench soak --cases 100000 --targets cuda --seed 100 \
  --time-limit "$(( ${SOAK_S:-60} - 15 ))" --out "$out"
exit $status
