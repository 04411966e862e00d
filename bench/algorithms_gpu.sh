#!/usr/bin/env bash
# One GPU session for the algorithm families beyond BFS: their tests on the real GPU, then the
# SSSP, list-ranking/APSP and connected-components benchmarks, each bounded in time so the whole
# call fits the device tool's 10-minute limit.
# Usage on a CUDA machine, from the repository root:  bash bench/algorithms_gpu.sh OUT [STEPS]
# STEPS: comma-separated subset of tests,sssp,listrank,components,soak (default: all).
# Seconds per step: TESTS_S, SSSP_S, LISTRANK_S, COMPONENTS_S, SOAK_S; TESTS overrides the test
# files, COMPONENTS_ARGS adds arguments to bench.components.
set -uo pipefail
out=${1:-results}; steps=${2:-tests,sssp,listrank,components,soak}
mkdir -p "$out"
if ls .whl/numpy-*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
export PYTHONUNBUFFERED=1 FRONTIER_HYPOTHESIS_PROFILE=${FRONTIER_HYPOTHESIS_PROFILE:-default}
export FRONTIER_DATASETS=${FRONTIER_DATASETS:-$PWD/.data}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/device.txt"
status=0
step() {  # step NAME SECONDS COMMAND...
  local name=$1 seconds=$2; shift 2
  case ",$steps," in *",$name,"*) ;; *) return ;; esac
  echo "=== $name (at most $seconds s): $*"
  local start=$SECONDS
  timeout "$seconds" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  tail -25 "$out/$name.log"
  echo "=== $name exit $rc after $((SECONDS - start)) s"
  [ $rc -eq 0 ] || status=1
}
tests=${TESTS:-$(ls tests/test_sssp.py tests/test_cull.py tests/test_bfs_variants.py tests/test_components.py \
  tests/test_list_ranking.py tests/test_apsp.py tests/test_tiles.py tests/test_centrality.py \
  tests/test_nx_backend.py tests/test_recovery.py tests/test_adaptive.py 2>/dev/null)}
step tests "${TESTS_S:-240}" python3 -m pytest -q -x -p no:cacheprovider $tests
step sssp "${SSSP_S:-150}" python3 -m bench.sssp --target cuda --runs 5 --out "$out"
step listrank "${LISTRANK_S:-150}" python3 bench/listrank_apsp.py --out "$out" --sizes 1e6,1e7,6.4e7 --runs 5
step components "${COMPONENTS_S:-120}" python3 -m bench.components --out "$out" ${COMPONENTS_ARGS:-}
step soak "${SOAK_S:-60}" python3 -m bench.soak --cases 100000 --targets cuda --seed 100 \
  --time-limit "$(( ${SOAK_S:-60} - 15 ))" --csv "$out/soak-cuda.csv"
exit $status
