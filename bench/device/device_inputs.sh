#!/usr/bin/env bash
# Device inputs on a GPU: the tests of inputs given as CuPy, PyTorch (where installed) and DLPack
# arrays, then the list-ranking goal of a 6.4x10^7-node list given on the device
# (python -m bench device_inputs), each bounded in time.
# Usage on a CUDA machine with CuPy, from the repository root:
#   bash bench/device/device_inputs.sh OUT [STEPS]
# STEPS: comma-separated subset of tests,listrank (default: both). Seconds per step: TESTS_S,
# LISTRANK_S; LISTRANK_ARGS adds arguments (e.g. --nodes 1e7).
set -uo pipefail
out=${1:-results}; steps=${2:-tests,listrank}
. "$(dirname "$0")/env.sh"
step tests "${TESTS_S:-300}" python3 -m pytest -q -p no:cacheprovider \
  tests/frontier/test_device_arrays.py tests/algorithms/test_device_inputs.py
step listrank "${LISTRANK_S:-240}" python3 -m bench device_inputs --target cuda --out "$out" \
  ${LISTRANK_ARGS:-}
exit $status
