#!/usr/bin/env bash
# One GPU session for the adaptive runtime: its tests on the real GPU, the small-frontier mode's
# thresholds swept on many-level graphs (suite small_frontier), the one-block floors
# (block_floor), the goal table (adaptive: default call against every static choice and the
# CuPy BFS, the tiny call), and the fixed cost of a call (call_profile); each step bounded in
# time so the whole call fits the device tool's 10-minute limit.
# Usage on a CUDA machine, from the repository root:  bash bench/device/adaptive.sh OUT [STEPS]
# STEPS: comma-separated subset of tests,sweep,floor,ncu,goals,call (default: all but ncu).
# Seconds per step: TESTS_S, SWEEP_S, FLOOR_S, NCU_S, GOALS_S, CALL_S; TESTS_K selects tests
# (default: cuda); SWEEP_ARGS and GOALS_ARGS add arguments to `python -m bench small_frontier`
# and `python -m bench adaptive`; TESTS overrides the test files.
set -uo pipefail
out=${1:-results}; steps=${2:-tests,sweep,floor,goals,call}
export FRONTIER_HYPOTHESIS_PROFILE=${FRONTIER_HYPOTHESIS_PROFILE:-default}
. "$(dirname "$0")/env.sh"
tests=${TESTS:-tests/operators/test_small_frontier.py tests/operators/test_adaptive.py tests/algorithms/test_bfs.py}
step tests "${TESTS_S:-150}" python3 -m pytest -q -x -p no:cacheprovider -k "${TESTS_K:-cuda}" $tests
step sweep "${SWEEP_S:-150}" python3 -m bench small_frontier --out "$out" ${SWEEP_ARGS:-}
step floor "${FLOOR_S:-120}" python3 -m bench block_floor --out "$out"
# Nsight Compute on one small-frontier phase of luxembourg (every level in one block) and on the
# plainest one-block kernel of the block_floor suite: where their warps stall
sections="--section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
step ncu "${NCU_S:-200}" bash -c "ncu --kernel-name regex:block_local --launch-skip 1 --launch-count 1 $sections python3 -m bench small_frontier --out $out/ncu --graphs luxembourg_osm --configs 2048x8192 > $out/ncu-block.txt 2>&1; ncu --kernel-name regex:kernel --launch-skip 1 --launch-count 1 $sections python3 -m bench block_floor --out $out/ncu --graphs luxembourg_osm > $out/ncu-floor.txt 2>&1; grep -h -E 'Duration|Stall|Warp Cycles|Issued|Registers|Local|Shared Memory Config|Block Size|Achieved|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|One or More|No Eligible' $out/ncu-block.txt $out/ncu-floor.txt"
step goals "${GOALS_S:-170}" python3 -m bench adaptive --out "$out" --tiny \
  --graphs rmat21,grid2000,luxembourg_osm,star1000000,delaunay_n16 ${GOALS_ARGS:-}
step call "${CALL_S:-50}" python3 -m bench call_profile --target cuda --out "$out"
exit $status
