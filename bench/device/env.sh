# Sourced by the wrappers of bench/device/ (from the repository root, with $out set): the numpy
# that numba-cuda 0.30 imports (a numpy 2.4 wheel in .whl/, installed into /tmp/site, where the
# machine's numpy is 2.5 or newer), unbuffered Python, the datasets folder (.data where it
# exists), the device's name in $out/device.txt, and `step NAME SECONDS COMMAND...`, which runs
# COMMAND bounded in time when NAME is in the comma-separated $steps, logs it to $out/NAME.log,
# prints its tail and sets $status to 1 on failure.
mkdir -p "$out"
if ls .whl/numpy-*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
else
  export PYTHONPATH=$PWD
fi
export PYTHONUNBUFFERED=1
[ -d .data ] && export FRONTIER_DATASETS=${FRONTIER_DATASETS:-$PWD/.data}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/device.txt"
status=0
step() {  # step NAME SECONDS COMMAND...
  local name=$1 seconds=$2; shift 2
  case ",${steps:-$name}," in *",$name,"*) ;; *) return ;; esac
  echo "=== $name (at most $seconds s): $*"
  local start=$SECONDS
  timeout "$seconds" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  tail -30 "$out/$name.log"
  echo "=== $name exit $rc after $((SECONDS - start)) s"
  [ $rc -eq 0 ] || status=1
}
