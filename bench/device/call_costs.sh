#!/usr/bin/env bash
# What a call costs beyond its kernels, on a CUDA machine, for this tree and (optionally) a
# baseline tree in the same session: the tiny-call cost of every catalog entry (target cuda
# forced), wall against device time on rmat21 and the 2000x2000 grid, and the first calls of
# fresh processes (kernel cache cold, warm, corrupted). PARTS picks some of tiny,device,first
# (default all); ROUNDS > 1 repeats the trees alternately (this tree, then the baseline, ...),
# so the spread of one version's repeats shows what a difference between versions must exceed.
# One log per tree and round: OUT/after-R.log and OUT/before-R.log.
# Usage from the repository root:  bash bench/device/call_costs.sh OUT [BASELINE_DIR]
set -uo pipefail
out=$1; base=${2:-}; parts=",${PARTS:-tiny,device,first},"
. "$(dirname "$0")/env.sh"
site=${PYTHONPATH%%:*}; [ "$site" = "$PWD" ] && site=""
costs() {  # costs DIR LOG
  (cd "$1" && export PYTHONPATH=${site:+$site:}$1 && {
     [[ $parts == *,tiny,* ]] && timeout 200 python3 -m bench calls --target cuda --parts tiny \
       --tiny-calls 200 --out /tmp/costs-tiny
     [[ $parts == *,device,* ]] && timeout 200 python3 -m bench calls --target cuda \
       --parts device --runs 7 --algorithms "${DEVICE_ALGORITHMS:-bfs,cc,pagerank,sssp}" \
       --graphs "${DEVICE_GRAPHS:-rmat21,grid2000}" --out /tmp/costs-device
     [[ $parts == *,first,* ]] && timeout 200 bash bench/device/first_calls.sh /tmp/costs-first
   } 2>&1 | grep -v -i -e warn -e '^calls \[' | tee "$2")
}
if [ -n "$base" ]; then
  base=$(cd "$base" && pwd)
  for d in .whl .data; do [ -e "$d" ] && [ ! -e "$base/$d" ] && ln -s "$PWD/$d" "$base/$d"; done
fi
for round in $(seq "${ROUNDS:-1}"); do
  costs "$PWD" "$out/after-$round.log"
  [ -n "$base" ] && costs "$base" "$out/before-$round.log"
done
exit 0
