#!/usr/bin/env bash
# Same-run comparison of what calls cost under two versions of the code: `python -m bench calls`
# with the given options on the tree in BASELINE_DIR (e.g. a `git archive` of an older commit)
# and on this tree, alternately for ROUNDS rounds, so both are timed on the same machine in the
# same session; each side keeps its own kernel cache folder across its rounds.
# Usage from the repository root:
#   bash bench/device/calls_before_after.sh BASELINE_DIR OUT_DIR ROUNDS [calls options...]
set -uo pipefail
base=$(cd "$1" && pwd); out=$2; rounds=$3; shift 3
mkdir -p "$out"
if ls .whl/numpy-*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONUNBUFFERED=1 FRONTIER_DATASETS=${FRONTIER_DATASETS:-$PWD/.data}
here=$PWD
caches=$(mktemp -d)
for round in $(seq 1 "$rounds"); do
  for side in before after; do
    dir=$here; [ "$side" = before ] && dir=$base
    (cd "$dir" && FRONTIER_CACHE_DIR=$caches/$side PYTHONPATH=/tmp/site:$dir \
       python3 -m bench calls --out "$out/$side-$round" "$@" > "$out/$side-$round.log" 2>&1)
    echo "=== $side, round $round: exit $?"
    grep -e '^|' "$out/$side-$round.log" | grep -v -e '---' | head -60
  done
done
