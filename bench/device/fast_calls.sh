#!/usr/bin/env bash
# One GPU session for the fast-calls issue (23) and SSSP on the device (22): the tests of the
# kernel cache, device inputs, out= and target="auto" and the stepping operator on the real GPU,
# the tiny-call cost of every catalog entry, the first calls of fresh processes (cache cold,
# warm, corrupted; then with the GPU forced, through the calls suite), SSSP on the large
# weighted graphs with the tiny call and rome99's APSP, the target auto picks with its default call against scipy on
# the bench's graphs, the path of 10^6 vertices among them (catalog --target auto, AUTO_GRAPHS
# and AUTO_ALGORITHMS), wall
# against device time on rmat21, the grid and luxembourg_osm, and list ranking of a list given
# on the device (suite device_inputs, LISTRANK_ARGS); each step bounded in time.
# Usage on a CUDA machine, from the repository root:  bash bench/device/fast_calls.sh OUT [STEPS]
# STEPS: comma-separated subset of tests,tiny,first,first_cuda,sssp,auto,device,listrank
# (default: all).
set -uo pipefail
out=${1:-results}; steps=${2:-tests,tiny,first,first_cuda,sssp,auto,device,listrank}
export FRONTIER_HYPOTHESIS_PROFILE=${FRONTIER_HYPOTHESIS_PROFILE:-default}
export FRONTIER_CACHE_DIR=${FRONTIER_CACHE_DIR:-/tmp/frontier-cache}
. "$(dirname "$0")/env.sh"
step tests "${TESTS_S:-200}" python3 -m pytest -q -p no:cacheprovider -n "${TEST_WORKERS:-14}" \
  -rfE tests/algorithms/test_output.py tests/frontier/test_placement.py \
  tests/frontier/test_kernel_cache.py tests/frontier/test_numba_cache.py tests/frontier/test_launch.py tests/operators/test_stepping.py \
  tests/algorithms/test_threads.py tests/frontier/test_device_arrays.py \
  tests/algorithms/test_device_inputs.py tests/algorithms/test_pagerank_fused.py \
  tests/algorithms/test_centrality.py tests/algorithms/test_list_ranking.py \
  tests/algorithms/test_strong_components.py
step tiny "${TINY_S:-90}" python3 -m bench calls --target cuda --parts tiny --tiny-calls 50 \
  --out "$out"
step first "${FIRST_S:-120}" bash bench/device/first_calls.sh "$out"
step first_cuda "${FIRST_CUDA_S:-120}" python3 -m bench calls --target cuda --parts first \
  --algorithms bfs,sssp,cc --out "$out/first_cuda"
step sssp "${SSSP_S:-200}" python3 -m bench sssp --target cuda --runs 5 --budget 20 --calls \
  --no-datasets --graphs "${GRAPHS:-rmat21_w1-100,gnm20_float,luxembourg_osm_w1-100}" \
  --methods "${METHODS:-near_far,delta_stepping,rho_stepping,bellman_ford}" --out "$out"
step auto "${AUTO_S:-180}" python3 -m bench catalog --target auto --runs 5 --out "$out/auto" \
  --graphs "${AUTO_GRAPHS:-path1000000,luxembourg_osm,star1000000,grid2000,rmat20}" \
  --algorithms "${AUTO_ALGORITHMS:-bfs,sssp,cc,pagerank}"
step device "${DEVICE_S:-150}" python3 -m bench calls --parts device --algorithms bfs,cc,pagerank \
  --out "$out/device"
step listrank "${LISTRANK_S:-90}" python3 -m bench device_inputs --target cuda --out "$out" \
  ${LISTRANK_ARGS:-}
exit $status
