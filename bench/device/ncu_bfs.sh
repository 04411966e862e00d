#!/usr/bin/env bash
# Nsight Compute profile of the BFS kernels on the two headline graphs (docs/performance.md).
# Usage on a CUDA machine: bash bench/profile.sh OUT_DIR   (PYTHONPATH set as in bench/gpu.sh)
set -uo pipefail
out=${1:-results}
mkdir -p "$out"
sections="--section SpeedOfLight --section Occupancy --section LaunchStats"
ncu --kernel-name regex:traverse --launch-skip 1 --launch-count 1 $sections \
    python3 bench/profile_bfs.py grid2000 thread > "$out/ncu-grid2000.txt" 2>&1
ncu --kernel-name regex:advance --launch-skip 6 --launch-count 2 $sections \
    python3 bench/profile_bfs.py rmat21 cta_warp_scan auto > "$out/ncu-rmat21-push.txt" 2>&1
ncu --kernel-name regex:pull --launch-skip 3 --launch-count 2 $sections \
    python3 bench/profile_bfs.py rmat21 cta_warp_scan auto > "$out/ncu-rmat21-pull.txt" 2>&1
grep -h -E "^  [a-z_]+|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|Block Size|Grid Size" "$out"/ncu-*.txt
