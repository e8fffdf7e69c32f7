#!/usr/bin/env bash
# The GPU check: run from the source tree on a machine with CuPy and a GPU (installs nothing).
#   bash scripts/gpu-check.sh            # results under ${OUT:-gpu-check-out}/
# 1. the whole test suite with CuPy as the backend,
# 2. the registry sweep on CuPy (python -m minigrad check --backend cupy),
# 3. NumPy vs CuPy forward and backward on identical inputs for every op,
# 4. the GPU benchmarks; then a short summary table.
# The same code paths run without a GPU on minigrad's CuPy simulator (CI does it:
#   pytest --minigrad-backend=cupy-sim), which cannot find what only a GPU shows: CUDA compile errors,
#   cuBLAS/TF32 numerics, atomics' ordering, memory, speed. This script is the check for those.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
out="${OUT:-gpu-check-out}"
mkdir -p "$out"

python - <<'PY' || { echo "gpu-check: CuPy with a GPU is needed"; exit 2; }
import cupy
n = cupy.cuda.runtime.getDeviceCount()
name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
print(f"cupy {cupy.__version__}, {n} device(s): {name}")
PY

status=0
step() {  # step NAME COMMAND...: run, log, remember the exit code
  local name=$1; shift
  local start=$SECONDS
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  [ $rc -ne 0 ] && status=1
  printf '%-28s rc=%-3s %5ss  %s\n' "$name" "$rc" "$((SECONDS - start))" "$(tail -n 1 "$out/$name.log")" >>"$out/summary.txt"
}
: >"$out/summary.txt"
# The plugin by module name, since an uninstalled source tree has no pytest11 entry point; `-p no:minigrad`
# blocks that entry point where minigrad is installed (else pluggy: "Plugin already registered").
step tests-cupy python -m pytest -p no:minigrad -p minigrad.testing.pytest_plugin --minigrad-backend=cupy -q \
  -p no:cacheprovider
step check-cupy python -m minigrad check --backend cupy --quiet --json "$out/check-cupy.json"
step numpy-vs-cupy python scripts/compare_backends.py --backend cupy --json "$out/numpy-vs-cupy.json"
step bench-ops-gpu python -m benchmarks.ops --backend cupy
step bench-mlp-gpu python -m benchmarks.mlp --backend cupy

echo
echo "== gpu-check summary (logs in $out/)"
cat "$out/summary.txt"
for f in bench-ops-gpu bench-mlp-gpu; do echo; echo "== $f"; tail -n 15 "$out/$f.log"; done
exit $status
