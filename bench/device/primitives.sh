#!/usr/bin/env bash
# One GPU session for the neighbourhood primitives of issue 49: their tests on the real GPU
# (common_neighbors and the graph view, reverse arcs and edge ids as functor state, simple
# graphs, the checked mode), then the primitives suite, common-neighbour enumeration over every
# arc of rmat18 beside intersection_count over the same arcs (the goal: at most 1.5x).
# Usage on a CUDA machine, from the repository root:  bash bench/device/primitives.sh OUT [STEPS]
# STEPS: comma-separated subset of tests,bench (default: both); seconds per step: TESTS_S,
# BENCH_S; graphs of the suite: GRAPHS (default rmat18).
set -uo pipefail
out=${1:-results}; steps=${2:-tests,bench}
export FRONTIER_HYPOTHESIS_PROFILE=${FRONTIER_HYPOTHESIS_PROFILE:-gpu}
export FRONTIER_CACHE_DIR=${FRONTIER_CACHE_DIR:-/tmp/frontier-cache}
. "$(dirname "$0")/env.sh"
step tests "${TESTS_S:-240}" python3 -m pytest -q -p no:cacheprovider -rfE \
  tests/frontier/test_graph_view_neighbors.py tests/frontier/test_arc_pairs.py \
  tests/frontier/test_simple_graph.py tests/frontier/test_checked_mode.py \
  tests/algorithms/test_triangles.py
step bench "${BENCH_S:-300}" python3 -m bench primitives --target cuda --runs 5 \
  --graphs "${GRAPHS:-rmat18}" --out "$out"
exit $status
