#!/usr/bin/env bash
# operators.loop on a GPU: the tests of the operators and algorithms (fused loops included), the
# loops suite (a BFS written with operators.loop against the same loop from the host, traverse
# and scipy), and the round-based algorithms (now fused loops) before and after, same run.
# Usage on a CUDA machine, from the repository root: bash bench/device/loops.sh OUT_DIR [BASELINE_DIR]
# (BASELINE_DIR: a `git archive` of the commit before; steps=tests,loops,before_after picks steps;
# GRAPHS and ALGORITHMS set the before/after cases).
set -uo pipefail
out=${1:-results}; base=${2:-.baseline}
. "$(dirname "$0")/env.sh"
step tests 270 env GPU_TEST_WORKERS=15 GPU_TEST_SECONDS=250 bash bench/device/tests.sh "$out/tests" \
  tests/operators tests/algorithms tests/frontier/test_graph_view_neighbors.py tests/test_functor_subset.py
step loops 120 python3 -m bench loops --target cuda --graphs luxembourg_osm,grid1000,rmat18 \
  --runs 5 --out "$out/loops"
step before_after 280 bash bench/device/before_after.sh "$base" "$out/ba" --target cuda \
  --algorithms "${ALGORITHMS:-mis,coloring,kcore,triangles}" --graphs "${GRAPHS:-luxembourg_osm,rmat21}" --runs 5
exit $status
