#!/usr/bin/env bash
# Runs upstream MLIR's CUDA integration tests on Quilt's CUDA runtime and
# the PTX emulator (docs/gpu-emulator.md, "Upstream MLIR integration tests").
#
#   scripts/upstream-cuda-tests.sh DIR [BUILD]
#
# DIR is a copy of llvm-project's mlir/test/Integration/GPU/CUDA (kept
# outside this repository); BUILD is Quilt's build directory (default
# build/). Each test is lowered with Debian's mlir-opt 22 by its RUN line's
# pipeline with the device code as PTX (cubin-format=isa), run with
# mlir-runner against libquilt_cuda_runtime.so with QUILT_GPU_DRIVER set to
# the emulator, and checked with FileCheck against the test itself. Prints
# PASS/FAIL per test; logs go to $OUT (default /tmp/quilt-upstream-cuda).
set -uo pipefail

DIR=${1:?usage: $0 LLVM_MLIR_TEST_INTEGRATION_GPU_CUDA_DIR [BUILD_DIR]}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${2:-$ROOT/build}" && pwd)
OUT=${OUT:-/tmp/quilt-upstream-cuda}
L=/usr/lib/llvm-22
OPT=$L/bin/mlir-opt
EMU=$BUILD/lib/libquilt_cuda_emulator.so
LIBS=$BUILD/lib/libquilt_cuda_runtime.so,$L/lib/libmlir_runner_utils.so,$L/lib/libmlir_c_runner_utils.so
mkdir -p "$OUT"

# test, then the mlir-opt arguments of its RUN line with cubin-format=isa.
TESTS=(
  "shuffle.mlir|-gpu-lower-to-nvvm-pipeline=cubin-format=isa"
  "printf.mlir|-gpu-lower-to-nvvm-pipeline=cubin-format=isa"
  "two-modules.mlir|-gpu-lower-to-nvvm-pipeline=cubin-format=isa"
  "all-reduce-and.mlir|-gpu-lower-to-nvvm-pipeline=cubin-format=isa"
  "all-reduce-op.mlir|-gpu-lower-to-nvvm-pipeline=cubin-format=isa"
  "all-reduce-region.mlir|-gpu-lower-to-nvvm-pipeline=cubin-format=isa"
  "TensorCore/wmma-matmul-f32.mlir|-gpu-lower-to-nvvm-pipeline=cubin-chip=sm_70 cubin-format=isa"
  "TensorCore/sm80/transform-mma-sync-matmul-f32.mlir|-transform-interpreter -test-transform-dialect-erase-schedule -gpu-lower-to-nvvm-pipeline=cubin-chip=sm_80 cubin-features=+ptx76 cubin-format=isa"
  "TensorCore/sm80/transform-mma-sync-matmul-f16-f16-accum.mlir|-transform-interpreter -test-transform-dialect-erase-schedule -gpu-lower-to-nvvm-pipeline=cubin-chip=sm_80 cubin-features=+ptx76 cubin-format=isa"
  "sm90/gemm_f32_f16_f16_128x128x128.mlir|-convert-linalg-to-loops -gpu-lower-to-nvvm-pipeline=cubin-chip=sm_90a cubin-features=+ptx80 opt-level=3 cubin-format=isa"
  "sm90/gemm_pred_f32_f16_f16_128x128x128.mlir|-convert-linalg-to-loops -gpu-lower-to-nvvm-pipeline=cubin-chip=sm_90a cubin-features=+ptx80 opt-level=3 cubin-format=isa"
  "sm90/tma_load_64x8_8x128_noswizzle.mlir|-gpu-lower-to-nvvm-pipeline=cubin-chip=sm_90 cubin-features=+ptx80 opt-level=3 cubin-format=isa"
  "sm90/tma_load_64x64_swizzle128b.mlir|-gpu-lower-to-nvvm-pipeline=cubin-chip=sm_90 cubin-features=+ptx80 opt-level=3 cubin-format=isa"
  "sm90/tma_load_128x64_swizzle128b.mlir|-gpu-lower-to-nvvm-pipeline=cubin-chip=sm_90 cubin-features=+ptx80 opt-level=3 cubin-format=isa"
  "sm90/cga_cluster.mlir|-gpu-lower-to-nvvm-pipeline=cubin-chip=sm_90a cubin-features=+ptx80 opt-level=3 cubin-format=isa"
)

pass=0
fail=0
for entry in "${TESTS[@]}"; do
  test=${entry%%|*}
  args=${entry#*|}
  name=$(echo "$test" | tr / _)
  if [[ ! -f $DIR/$test ]]; then
    echo "SKIP $test (not in $DIR)"
    continue
  fi
  # The pipeline option string is one argument: split the pass list on
  # spaces, but keep `-gpu-lower-to-nvvm-pipeline=...` whole.
  passes=${args%%-gpu-lower-to-nvvm-pipeline=*}
  pipeline=${args#"$passes"}
  # shellcheck disable=SC2086
  if ! $OPT "$DIR/$test" $passes "${pipeline%%=*}=${pipeline#*=}" \
      >"$OUT/$name.lowered.mlir" 2>"$OUT/$name.lower.log"; then
    echo "FAIL $test: lowering ($(grep -m1 error "$OUT/$name.lower.log"))"
    fail=$((fail + 1))
    continue
  fi
  QUILT_GPU_DRIVER=$EMU $L/bin/mlir-runner "$OUT/$name.lowered.mlir" \
    --shared-libs="$LIBS" --entry-point-result=void >"$OUT/$name.out" 2>&1
  if $L/bin/FileCheck "$DIR/$test" --input-file="$OUT/$name.out" \
      >"$OUT/$name.check.log" 2>&1; then
    echo "PASS $test"
    pass=$((pass + 1))
  else
    echo "FAIL $test: $(grep -m1 -E 'quilt-emulator|error' "$OUT/$name.out" "$OUT/$name.check.log" | head -1)"
    fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed (logs in $OUT)"
