#!/usr/bin/env bash
# Runs bench/gpu bundles on a GPU machine inside a fixed time budget.
#
#   bench/gpu/run-budgeted.sh SECONDS BUNDLE[@CAP] [BUNDLE[@CAP]...]
#
# One run.py process per bundle, each given what is left of the budget, or
# CAP seconds when that is less: a hung or faulting kernel costs its own
# bundle, not the ones after it, and the script ends on time with whatever
# was measured. Writes into $OUT
# (default bench/gpu/results): machine.txt (GPU, driver, PyTorch, Triton),
# log.txt (run.py's per-workload lines and tables, written as they come) and
# results.tar.gz (every bundle's .md and .json report).
set -uo pipefail

if (($# < 2)); then
  echo "usage: $0 SECONDS BUNDLE[@CAP] [BUNDLE[@CAP]...]" >&2
  exit 2
fi
budget=$1
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${OUT:-$root/bench/gpu/results}
reports=$(mktemp -d)
mkdir -p "$out"
start=$SECONDS

{
  nvidia-smi
  python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda,
torch.cuda.get_device_name(), torch.cuda.get_device_properties(0).multi_processor_count, "SMs")'
  python3 -c 'import triton; print("triton", triton.__version__)'
  ldd "${1%@*}"/*.so
} >"$out/machine.txt" 2>&1

status=0
for arg in "$@"; do
  bundle=${arg%@*}
  left=$((budget - (SECONDS - start)))
  if ((left < 20)); then
    echo "run-budgeted: $bundle skipped, budget spent" | tee -a "$out/log.txt"
    status=1
    continue
  fi
  if [[ $arg == *@* ]] && ((${arg##*@} < left)); then
    left=${arg##*@}
  fi
  echo "run-budgeted: $bundle (at most $left s)" | tee -a "$out/log.txt"
  PYTHONUNBUFFERED=1 timeout -k 5 "$left" python3 "$root/bench/gpu/run.py" \
    "$bundle" --model-sample 2 --out "$reports" 2>&1 | tee -a "$out/log.txt"
  rc=${PIPESTATUS[0]}
  if ((rc != 0)); then
    echo "run-budgeted: $bundle exited with $rc$( ((rc == 124)) && echo ' (time limit)')" |
      tee -a "$out/log.txt"
    status=1
  fi
done
tar -czf "$out/results.tar.gz" -C "$reports" .
echo "run-budgeted: $((SECONDS - start)) s" | tee -a "$out/log.txt"
exit $status
