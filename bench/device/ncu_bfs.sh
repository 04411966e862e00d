#!/usr/bin/env bash
# Nsight Compute profile of the BFS kernels on the two headline graphs (docs/performance.md).
# Usage on a CUDA machine, from the repository root: bash bench/device/ncu_bfs.sh OUT_DIR
set -uo pipefail
out=${1:-results}
. "$(dirname "$0")/env.sh"
sections="--section SpeedOfLight --section Occupancy --section LaunchStats"
bfs="python3 -m bench profile_bfs --out $out"
ncu --kernel-name regex:traverse --launch-skip 1 --launch-count 1 $sections \
    $bfs --graphs grid2000 --balancer thread > "$out/ncu-grid2000.txt" 2>&1
ncu --kernel-name regex:advance --launch-skip 6 --launch-count 2 $sections \
    $bfs --graphs rmat21 --balancer cta_warp_scan --direction auto > "$out/ncu-rmat21-push.txt" 2>&1
ncu --kernel-name regex:pull --launch-skip 3 --launch-count 2 $sections \
    $bfs --graphs rmat21 --balancer cta_warp_scan --direction auto > "$out/ncu-rmat21-pull.txt" 2>&1
grep -h -E "^  [a-z_]+|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|Block Size|Grid Size" "$out"/ncu-*.txt
