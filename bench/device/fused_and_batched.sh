#!/usr/bin/env bash
# One GPU session for the fused SCC rounds, the batched sources and edge betweenness: their tests
# on the real GPU, SCC on its graphs (structure suite), the default calls of the catalog on the
# road graphs, and repeated-SSSP APSP of rome99 (all sources batched) against the default APSP;
# each step bounded in time so the whole call fits the device tool's 10-minute limit.
# Usage on a CUDA machine, from the repository root:  bash bench/device/fused_and_batched.sh OUT [STEPS]
# STEPS: comma-separated subset of tests,scc,catalog,apsp (default: all). Seconds per step:
# TESTS_S, SCC_S, CATALOG_S, APSP_S; GPU_TEST_WORKERS sets the test workers (default 15).
set -uo pipefail
out=${1:-results}; steps=${2:-tests,scc,catalog,apsp}
export FRONTIER_HYPOTHESIS_PROFILE=${FRONTIER_HYPOTHESIS_PROFILE:-default}
. "$(dirname "$0")/env.sh"
step tests "${TESTS_S:-200}" python3 -m pytest -q -p no:cacheprovider -n "${GPU_TEST_WORKERS:-15}" \
  tests/operators/test_loop.py tests/operators/test_tracing.py tests/operators/test_sources.py \
  tests/operators/test_iterate.py tests/algorithms/test_strong_components.py \
  tests/algorithms/test_independent_set.py tests/algorithms/test_coloring.py \
  tests/algorithms/test_sssp.py tests/algorithms/test_apsp.py tests/algorithms/test_bfs_variants.py \
  tests/algorithms/test_centrality.py tests/algorithms/test_components.py
step scc "${SCC_S:-100}" python3 -m bench structure --target cuda --algorithms scc \
  --graphs rome99,wiki-Vote,rmat21_directed --runs 5 --out "$out"
step catalog "${CATALOG_S:-90}" python3 -m bench catalog --target cuda --runs 5 --out "$out" \
  --graphs luxembourg_osm,rome99 --algorithms bfs,sssp,cc,scc,kcore,mis,coloring,triangles,bc
step apsp "${APSP_S:-60}" python3 -c "
import statistics, time
from algorithms import apsp
from bench.graphs import build
g = build('rome99')
for method, target in (('repeated_sssp', 'cuda'), ('repeated_sssp', None), ('auto', None)):
    r = apsp(g, method=method, target=target)
    times = []
    for _ in range(5):
        t = time.perf_counter(); apsp(g, method=method, target=target)
        times.append(time.perf_counter() - t)
    print(f'apsp rome99 method={method} target={target} ran on {r.target.name}: '
          f'{statistics.median(times) * 1e3:.1f} ms wall (median of 5)')
"
exit $status
