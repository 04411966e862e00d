#!/usr/bin/env bash
# The NetworkX backend on a CUDA machine: NetworkX's own tests of the functions the backend
# implements (.ci/networkx-tests) run through it with the default target (None: the GPU), then
# the speed suite on the GPU. Entry points come from frontier_graph.egg-info in the checkout
# (carried, or made here). Usage from the repository root:
#   bash bench/device/networkx.sh OUT [python -m bench networkx options...]
# NX_TEST_SECONDS and NX_BENCH_SECONDS bound the two steps; `steps=tests` runs one of them.
set -uo pipefail
out=$1; shift
. "$(dirname "$0")/env.sh"
[ -d frontier_graph.egg-info ] || python3 -c "import setuptools; setuptools.setup()" -q egg_info
step tests "${NX_TEST_SECONDS:-300}" env NETWORKX_TEST_BACKEND=frontier \
  NETWORKX_FALLBACK_TO_NX=True python3 -m pytest -q -p no:cacheprovider \
  --pyargs $(grep -v '^#' .ci/networkx-tests)
step bench "${NX_BENCH_SECONDS:-300}" python3 -m bench networkx --target cuda \
  --out "$out/bench" "$@"
exit $status
