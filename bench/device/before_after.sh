#!/usr/bin/env bash
# Same-run comparison of two versions of the code on a CUDA machine: the catalog suite on the
# tree in BASELINE_DIR (e.g. a `git archive` of an older commit) and on this tree, one after the
# other, so both are timed on the same machine in the same session. A baseline from before the
# suites were commands of `python -m bench` runs its `python -m bench all` (the same suite).
# Usage from the repository root: bash bench/device/before_after.sh BASELINE_DIR OUT_DIR [catalog options...]
set -uo pipefail
base=$(cd "$1" && pwd); out=$2; shift 2
mkdir -p "$out"
if ls .whl/numpy-*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONUNBUFFERED=1 FRONTIER_DATASETS=${FRONTIER_DATASETS:-$PWD/.data}
here=$PWD
for side in before after; do
  dir=$here; [ "$side" = before ] && dir=$base
  suite=catalog; [ -d "$dir/bench/suites" ] || suite=all
  (cd "$dir" && PYTHONPATH=/tmp/site:$dir python3 -m bench $suite --out "$out/$side" "$@" 2>&1 \
     | tee "$out/$side.log" | grep --line-buffered -v -e '^|' -e '^    (' | grep -iv 'warn')
done
