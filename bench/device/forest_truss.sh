#!/usr/bin/env bash
# One GPU session for the new catalog algorithms of issue 48 (minimum spanning forest, k-truss,
# label-propagation communities): their tests on the real GPU (every balancer, the hypothesis
# "gpu" profile), the catalog-wide tests that take them (output, race detector's refusal on a
# GPU), then the forest_truss suite: Borůvka on luxembourg_osm and rmat21 (weights 1..100) and
# the 5-truss of rmat18 beside their one-core references (goal: >= 10x each), label propagation
# on luxembourg_osm and rmat18 beside its reference.
# Usage on a CUDA machine, from the repository root:  bash bench/device/forest_truss.sh OUT [STEPS]
# STEPS: comma-separated subset of tests,catalog,bench (default: all); seconds per step: TESTS_S,
# CATALOG_S, BENCH_S; cases of the suite: CASES.
set -uo pipefail
out=${1:-results}; steps=${2:-tests,catalog,bench}
export FRONTIER_HYPOTHESIS_PROFILE=${FRONTIER_HYPOTHESIS_PROFILE:-gpu}
export FRONTIER_CACHE_DIR=${FRONTIER_CACHE_DIR:-/tmp/frontier-cache}
. "$(dirname "$0")/env.sh"
step tests "${TESTS_S:-420}" python3 -m pytest -q -p no:cacheprovider -rfE \
  tests/algorithms/test_minimum_spanning_forest.py tests/algorithms/test_truss.py \
  tests/algorithms/test_communities.py tests/algorithms/test_coloring.py
step catalog "${CATALOG_S:-300}" python3 -m pytest -q -p no:cacheprovider -rfE \
  tests/algorithms/test_output.py tests/frontier_nx/test_targets.py \
  -k "msf or ktruss or communities or coloring or k_truss or minimum_spanning or label_prop or greedy"
step bench "${BENCH_S:-540}" python3 -m bench forest_truss --target cuda --runs 5 \
  --cases "${CASES:-msf:luxembourg_osm_w1-100,msf:rmat21_w1-100,ktruss:rmat18,communities:luxembourg_osm,communities:rmat18}" \
  --out "$out"
exit $status
