#!/usr/bin/env bash
# Runs upstream MLIR's ROCm integration tests on Quilt's HIP runtime and
# the AMDGCN emulator (docs/gpu-emulator.md, "Upstream MLIR integration
# tests").
#
#   scripts/upstream-rocm-tests.sh DIR [BUILD]
#
# DIR is a copy of llvm-project's mlir/test/Integration/GPU/ROCM (kept
# outside this repository); BUILD is Quilt's build directory (default
# build/). Each test is lowered with Debian's mlir-opt 22 by its RUN line's
# stages, brought to MLIR 22 (gpu-to-hsaco becomes rocdl-attach-target +
# gpu-module-to-binary; %chip is the emulated target's chip) with the device
# code as an HSA code object (gpu-module-to-binary format=bin, linked by
# LLVM 22's ld.lld against rocm-device-libs' bitcode), run with mlir-runner
# against libquilt_hip_runtime.so with QUILT_GPU_DRIVER set to the emulator
# and QUILT_EMULATOR_TARGET to the test's target, and checked with
# FileCheck against the test itself. Prints PASS/FAIL per test; logs go to
# $OUT (default /tmp/quilt-upstream-rocm), with each kernel's AMDGCN
# assembly in $OUT/NAME.s.
#
# Upstream's ROCm runtime wrappers also export mgpuMemGetDeviceMemRef1dFloat
# and mgpuMemGetDeviceMemRef1dInt32 (a host-registered memref's device
# alias), which several tests call and libquilt_hip_runtime.so lacks; the
# script compiles them into $OUT/rocm-test-wrappers.so (the device address
# of host-registered memory is its host address, as the emulator maps it)
# and loads it too.
set -uo pipefail

DIR=${1:?usage: $0 LLVM_MLIR_TEST_INTEGRATION_GPU_ROCM_DIR [BUILD_DIR]}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${2:-$ROOT/build}" && pwd)
OUT=${OUT:-/tmp/quilt-upstream-rocm}
L=/usr/lib/llvm-22
OPT=$L/bin/mlir-opt
EMU=$BUILD/lib/libquilt_hip_emulator.so
BITCODE=${ROCM_DEVICE_LIBS:-/usr/lib/x86_64-linux-gnu/amdgcn}
mkdir -p "$OUT"

# gpu-module-to-binary's toolkit: amdgcn/bitcode and llvm/bin/ld.lld.
TOOLKIT=$OUT/toolkit
mkdir -p "$TOOLKIT/llvm"
ln -sfn "$BITCODE" "$TOOLKIT/amdgcn"
ln -sfn "$L/bin" "$TOOLKIT/llvm/bin"

WRAPPERS=$OUT/rocm-test-wrappers.so
cat >"$OUT/rocm-test-wrappers.c" <<'EOF'
#include <stdint.h>
typedef struct { float *allocated, *aligned; int64_t offset, size, stride; } F1;
typedef struct { int32_t *allocated, *aligned; int64_t offset, size, stride; } I1;
F1 mgpuMemGetDeviceMemRef1dFloat(float *allocated, float *aligned,
                                 int64_t offset, int64_t size, int64_t stride) {
  F1 r = {aligned, aligned, offset, size, stride};
  return r;
}
I1 mgpuMemGetDeviceMemRef1dInt32(int32_t *allocated, int32_t *aligned,
                                 int64_t offset, int64_t size, int64_t stride) {
  I1 r = {aligned, aligned, offset, size, stride};
  return r;
}
EOF
if ! cc -shared -fPIC -O2 "$OUT/rocm-test-wrappers.c" -o "$WRAPPERS"; then
  echo "cannot compile $OUT/rocm-test-wrappers.c" >&2
  exit 2
fi
LIBS=$BUILD/lib/libquilt_hip_runtime.so,$WRAPPERS,$L/lib/libmlir_runner_utils.so,$L/lib/libmlir_c_runner_utils.so

# test, emulated target (QUILT_EMULATOR_TARGET; %chip is its chip), then
# the mlir-opt stages of its RUN line separated by ' ; ' (each stage is
# split like a shell command line). `-gpu-module-to-binary` gets
# format=bin and the toolkit above. Brought to MLIR 22: two-modules and
# vector-transferops' `gpu-to-hsaco{chip=%chip}` is `rocdl-attach-target
# {chip=%chip}` + `-reconcile-unrealized-casts -gpu-module-to-binary`;
# printf's `convert-gpu-to-rocdl{triple=%chip}` loses the option MLIR 22
# lacks; gpu-lower-to-rocdl-pipeline's meta-pass (newer than MLIR 22) is
# spelled out as scf-to-cf, outlining, amdgpu-to-rocdl, gpu-to-rocdl,
# attach-target, gpu-to-llvm and gpu-module-to-binary. The WMMA tests'
# `convert-gpu-to-amdgpu` is kept: MLIR 22 has no such pass.
TESTS=(
  "vecadd.mlir|mi300x|-convert-scf-to-cf ; -gpu-kernel-outlining ; -pass-pipeline='builtin.module(gpu.module(strip-debuginfo,convert-gpu-to-rocdl{use-bare-ptr-memref-call-conv=true}),rocdl-attach-target{chip=%chip})' ; -gpu-to-llvm=use-bare-pointers-for-kernels=true -reconcile-unrealized-casts -gpu-module-to-binary"
  "two-modules.mlir|mi300x|-gpu-kernel-outlining ; -pass-pipeline='builtin.module(gpu.module(strip-debuginfo,convert-gpu-to-rocdl),rocdl-attach-target{chip=%chip})' ; -gpu-to-llvm -reconcile-unrealized-casts -gpu-module-to-binary"
  "gpu-to-hsaco.mlir|mi300x|-gpu-kernel-outlining ; -pass-pipeline='builtin.module(gpu.module(strip-debuginfo,convert-gpu-to-rocdl),rocdl-attach-target{chip=%chip})' ; -gpu-to-llvm -reconcile-unrealized-casts -gpu-module-to-binary"
  "vector-transferops.mlir|mi300x|-convert-scf-to-cf ; -gpu-kernel-outlining ; -pass-pipeline='builtin.module(gpu.module(strip-debuginfo,convert-gpu-to-rocdl{chipset=%chip index-bitwidth=32}),rocdl-attach-target{chip=%chip})' ; -gpu-to-llvm -reconcile-unrealized-casts -gpu-module-to-binary"
  "printf.mlir|mi300x|-pass-pipeline='builtin.module(gpu.module(strip-debuginfo,convert-gpu-to-rocdl{index-bitwidth=32 runtime=HIP}),rocdl-attach-target{chip=%chip})' ; -gpu-to-llvm -reconcile-unrealized-casts -gpu-module-to-binary"
  "assert.mlir|mi300x|-pass-pipeline='builtin.module(gpu.module(strip-debuginfo,convert-gpu-to-rocdl{index-bitwidth=32 runtime=HIP}),rocdl-attach-target{chip=%chip})' ; -gpu-to-llvm -reconcile-unrealized-casts -gpu-module-to-binary"
  "gpu-lower-to-rocdl-pipeline.mlir|mi300x|-convert-scf-to-cf -gpu-kernel-outlining ; -pass-pipeline='builtin.module(gpu.module(strip-debuginfo,convert-amdgpu-to-rocdl{chipset=%chip},convert-gpu-to-rocdl{chipset=%chip}),rocdl-attach-target{chip=%chip})' ; -gpu-to-llvm -reconcile-unrealized-casts -gpu-module-to-binary"
  "WMMA/wmma_f16_16_16_16_f16.mlir|rx7900xtx|-convert-scf-to-cf ; -gpu-kernel-outlining ; -pass-pipeline='builtin.module(gpu.module(strip-debuginfo,convert-gpu-to-amdgpu{chipset=%chip index-bitwidth=32},convert-gpu-to-rocdl{chipset=%chip index-bitwidth=32},reconcile-unrealized-casts),rocdl-attach-target{chip=%chip})' ; -gpu-to-llvm -gpu-module-to-binary"
  "WMMA/wmma_f16_16_16_16_f16_opselect.mlir|rx7900xtx|-convert-scf-to-cf ; -gpu-kernel-outlining ; -pass-pipeline='builtin.module(gpu.module(strip-debuginfo,convert-gpu-to-amdgpu{chipset=%chip index-bitwidth=32},convert-gpu-to-rocdl{chipset=%chip index-bitwidth=32},reconcile-unrealized-casts),rocdl-attach-target{chip=%chip})' ; -gpu-to-llvm -gpu-module-to-binary"
  "WMMA/wmma_f16_16_16_16_f16_x2.mlir|rx7900xtx|-convert-scf-to-cf ; -gpu-kernel-outlining ; -pass-pipeline='builtin.module(gpu.module(strip-debuginfo,convert-gpu-to-amdgpu{chipset=%chip index-bitwidth=32},convert-gpu-to-rocdl{chipset=%chip index-bitwidth=32},reconcile-unrealized-casts),rocdl-attach-target{chip=%chip})' ; -gpu-to-llvm -gpu-module-to-binary"
  "WMMA/wmma_f32_16_16_16_f16.mlir|rx7900xtx|-convert-scf-to-cf ; -gpu-kernel-outlining ; -pass-pipeline='builtin.module(gpu.module(strip-debuginfo,convert-gpu-to-amdgpu{chipset=%chip index-bitwidth=32},convert-gpu-to-rocdl{chipset=%chip index-bitwidth=32},reconcile-unrealized-casts),rocdl-attach-target{chip=%chip})' ; -gpu-to-llvm -gpu-module-to-binary"
  "WMMA/wmma_f32_16_16_16_f16_a_b_transpose.mlir|rx7900xtx|-convert-scf-to-cf ; -gpu-kernel-outlining ; -pass-pipeline='builtin.module(gpu.module(strip-debuginfo,convert-gpu-to-amdgpu{chipset=%chip index-bitwidth=32},convert-gpu-to-rocdl{chipset=%chip index-bitwidth=32},reconcile-unrealized-casts),rocdl-attach-target{chip=%chip})' ; -gpu-to-llvm -gpu-module-to-binary"
)

chip_of() {
  case $1 in
    mi300x) echo gfx942 ;;
    mi250x) echo gfx90a ;;
    rx7900xtx) echo gfx1100 ;;
    *) echo "unknown target $1" >&2; return 1 ;;
  esac
}

# Runs mlir-opt stage by stage: $1 input, $2 output, $3 log, $4 stages,
# $5 gpu-module-to-binary format. Prints the failing stage's number.
lower() {
  local input=$1 output=$2 log=$3 stages=$4 format=$5 i=0 stage
  local -a args
  local cur=$input
  : >"$log"
  IFS=';' read -ra parts <<<"$stages"
  for stage in "${parts[@]}"; do
    i=$((i + 1))
    eval "args=($stage)"
    args=("${args[@]/#-gpu-module-to-binary/-gpu-module-to-binary=format=$format toolkit=$TOOLKIT}")
    echo "stage $i: mlir-opt ${args[*]}" >>"$log"
    if ! $OPT "$cur" "${args[@]}" >"$output.$i" 2>>"$log"; then
      rm -f "$output".[0-9]*
      echo "$i"
      return 1
    fi
    cur=$output.$i
  done
  mv "$cur" "$output"
  rm -f "$output".[0-9]*
}

pass=0
fail=0
for entry in "${TESTS[@]}"; do
  IFS='|' read -r test target stages <<<"$entry"
  name=$(echo "$test" | tr / _)
  if [[ ! -f $DIR/$test ]]; then
    echo "SKIP $test (not in $DIR)"
    continue
  fi
  chip=$(chip_of "$target") || exit 2
  stages=${stages//%chip/$chip}
  if ! stage=$(lower "$DIR/$test" "$OUT/$name.lowered.mlir" \
      "$OUT/$name.lower.log" "$stages" bin); then
    echo "FAIL $test: lowering, stage $stage ($(grep -m1 error "$OUT/$name.lower.log"))"
    fail=$((fail + 1))
    continue
  fi
  # The same kernels as AMDGCN assembly, for reading a failure.
  lower "$DIR/$test" "$OUT/$name.isa.mlir" "$OUT/$name.isa.log" "$stages" \
    isa >/dev/null &&
    sed -n 's/.*assembly = "\(.*\)".*/\1/p' "$OUT/$name.isa.mlir" |
    sed 's/\\0A/\n/g; s/\\09/\t/g; s/\\22/"/g' >"$OUT/$name.s"
  QUILT_GPU_VERBOSE=1 QUILT_GPU_DRIVER=$EMU QUILT_EMULATOR_TARGET=$target \
    $L/bin/mlir-runner "$OUT/$name.lowered.mlir" \
    --shared-libs="$LIBS" --entry-point-result=void >"$OUT/$name.out" 2>&1
  if $L/bin/FileCheck "$DIR/$test" --input-file="$OUT/$name.out" \
      >"$OUT/$name.check.log" 2>&1; then
    echo "PASS $test"
    pass=$((pass + 1))
  else
    echo "FAIL $test: $(grep -m1 -E 'quilt-gpu|quilt-emulator|rror' "$OUT/$name.out" "$OUT/$name.check.log" | head -1)"
    fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed (logs in $OUT)"
