#!/usr/bin/env bash
# The first call of a fresh process on the GPU, kernel cache cold then warm (then corrupted, then
# with one bit flipped in every compiled kernel; last the cache's modes: 700 and 600 only):
# bfs, sssp and connected components on 30x30 grids, each process printing its times and
# frontier.runtime.kernel_cache.stats() (a warm process must compile nothing).
# Usage on a CUDA machine, from the repository root:  bash bench/device/first_calls.sh OUT
set -uo pipefail
out=${1:-results}
. "$(dirname "$0")/env.sh"
export FRONTIER_CACHE_DIR=$(mktemp -d)
first() {
  python3 - <<'PY'
import time
t0 = time.perf_counter()
from algorithms import bfs, sssp, connected_components
from frontier import generators
from frontier.runtime import kernel_cache
print("import", round(time.perf_counter() - t0, 3))
G = generators.grid2d(30, 30); GW = generators.grid2d(30, 30, weights=(1, 9))
for n, f in [("bfs", lambda: bfs(G, 0)), ("sssp", lambda: sssp(GW, 0)),
             ("cc", lambda: connected_components(G))]:
    t = time.perf_counter(); r = f(); print(n, round(time.perf_counter() - t, 3))
print(kernel_cache.stats())
PY
}
echo "--- cold"; first
echo "--- warm"; first
find "$FRONTIER_CACHE_DIR" -type f -exec sh -c 'printf "\0garbage" > "$1"' _ {} \;
echo "--- corrupted"; first
echo "--- warm again"; first
python3 - "$FRONTIER_CACHE_DIR" <<'PY'
import pathlib, sys
for p in pathlib.Path(sys.argv[1]).rglob("*.nbc"):
    b = bytearray(p.read_bytes()); b[len(b) // 2] ^= 0x10; p.write_bytes(bytes(b))
PY
echo "--- one bit flipped in every compiled kernel"; first
echo "--- modes of the cache's directories (d) and files (f)"
find "$FRONTIER_CACHE_DIR" -printf '%m %y\n' | sort | uniq -c
