#!/usr/bin/env bash
# The catalog suite (python -m bench catalog), then the test suite on the real GPU (cuda target).
# Usage on a CUDA machine, from the repository root:
#   bash bench/device/catalog_and_tests.sh [OUT_DIR] [catalog options...]
# GPU_TEST_SECONDS bounds the test run (default: no bound), so that one call fits a time limit.
# Needs numpy < 2.5 (numba-cuda 0.30 does not import under 2.5): where the machine's numpy is
# newer, put a numpy 2.4 wheel in .whl/ and env.sh installs it into /tmp/site first.
set -uo pipefail
out=${1:-results}; shift || true
export FRONTIER_HYPOTHESIS_PROFILE=${FRONTIER_HYPOTHESIS_PROFILE:-gpu}
. "$(dirname "$0")/env.sh"
python3 -c "import numba, numba.cuda as c, numpy; print('numba', numba.__version__, 'numpy', numpy.__version__, 'cuda available', c.is_available())" | tee -a "$out/device.txt"
python3 -m bench catalog --out "$out" "$@" 2>&1 | tee "$out/catalog.log" | grep -v '^|'
suite=${PIPESTATUS[0]}
timeout "${GPU_TEST_SECONDS:-0}" python3 -m pytest -q -p no:cacheprovider tests 2>&1 \
  | tee "$out/pytest-gpu.txt" | tail -15
tests=${PIPESTATUS[0]}
echo "pytest exit $tests, catalog exit $suite"
exit $(( tests != 0 || suite != 0 ))
