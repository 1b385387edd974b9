#!/usr/bin/env bash
# One entry point behind the README's commands:
#   scripts/quilt.sh demo    install what is missing, build, run the main job
#   scripts/quilt.sh test    install what is missing, build, run every test
#   scripts/quilt.sh build   install what is missing and build
#   scripts/quilt.sh gpu-bench [TARGET [WORKLOAD_FILE...]]
#                            build, and prepare the GPU benchmark of each
#                            workload file (default: bench/workloads/*.txt)
#                            for TARGET (default h100) in
#                            bench/gpu/bundles/TARGET; runs it when this
#                            machine has an NVIDIA GPU and PyTorch, else says
#                            how to run it on one. wgmma candidates are
#                            wgmma.mma_async kernels loading their tiles
#                            with TMA; QUILT_NATIVE_WGMMA=0 compiles them as
#                            mma.sync (bundles in .../TARGET-mma-sync),
#                            QUILT_TMA=0 stages their tiles with cp.async
#                            (bundles in .../TARGET-no-tma)
#
# Installs missing Debian packages non-interactively (idempotent: nothing is
# installed when everything is present), configures once with Ninja against
# Debian's LLVM/MLIR 22, and builds incrementally. `test` also builds the
# sanitizer build with Clang 22 (ASan + UBSan, coverage for the fuzzers; no
# MLIR: the cost model, the runtimes, both emulators, quiltc's analysis
# commands, their unit tests and the reader fuzzers) and runs its suites
# with the others (docs/testing.md).
#
# Environment: QUILT_BUILD_DIR (default: build), QUILT_SANITIZER_BUILD_DIR
# (default: build-asan), QUILT_BUILD_TYPE (default: Release), QUILT_JOBS
# (default: nproc), QUILT_CMAKE_ARGS (extra arguments for the main build).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${QUILT_BUILD_DIR:-$ROOT/build}
SANITIZER_BUILD_DIR=${QUILT_SANITIZER_BUILD_DIR:-$ROOT/build-asan}
BUILD_TYPE=${QUILT_BUILD_TYPE:-Release}
JOBS=${QUILT_JOBS:-$(nproc)}
LLVM_PREFIX=/usr/lib/llvm-22

PACKAGES=(
  cmake ninja-build g++ clang-22 libclang-rt-22-dev python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools lld-22
  libgtest-dev libbenchmark-dev libopenblas-dev libomp-22-dev
  libdnnl-dev libblis-dev libtcmalloc-minimal4
  python3-dev pybind11-dev python3-numpy python3-pytest python3-pytest-xdist
  python3-sklearn
  libamdhip64-dev rocm-device-libs
  qemu-user g++-aarch64-linux-gnu
)

# Each line carries the minutes and seconds since the script started, so a
# CI log shows where its time went (build, sanitizer build, tests).
log() {
  printf '\033[1m[quilt %d:%02d]\033[0m %s\n' $((SECONDS / 60)) \
    $((SECONDS % 60)) "$*"
}

install_packages() {
  local missing=()
  for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$pkg")
  done
  if ((${#missing[@]} == 0)); then
    return
  fi
  log "installing: ${missing[*]}"
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# The sanitizer build's compiler: Clang 22 (Debian's LLVM release, the one
# MLIR comes from; its sanitizers and libFuzzer) and its lld.
SANITIZER_TOOLCHAIN=(
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
  -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld-22
  -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld-22
  -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld-22
)

configure() {
  if [[ -f $BUILD_DIR/build.ninja ]]; then
    return
  fi
  log "configuring $BUILD_DIR ($BUILD_TYPE)"
  # shellcheck disable=SC2086
  cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    -DMLIR_LINK_MLIR_DYLIB=ON \
    -DQUILT_ENABLE_FUZZERS=ON \
    -DQUILT_SANITIZER_BUILD_DIR="$SANITIZER_BUILD_DIR" \
    ${QUILT_CMAKE_ARGS:-}
}

# The sanitizer build: -O1 with assertions, ASan + UBSan (any report fails
# the test), coverage instrumentation for the fuzzers, no MLIR.
configure_sanitizer_build() {
  if [[ -f $SANITIZER_BUILD_DIR/build.ninja ]]; then
    return
  fi
  log "configuring $SANITIZER_BUILD_DIR (ASan + UBSan)"
  cmake -G Ninja -S "$ROOT" -B "$SANITIZER_BUILD_DIR" "${SANITIZER_TOOLCHAIN[@]}" \
    -DCMAKE_BUILD_TYPE=Sanitize \
    -DCMAKE_C_FLAGS_SANITIZE=-O1 -DCMAKE_CXX_FLAGS_SANITIZE=-O1 \
    -DQUILT_ENABLE_MLIR=OFF \
    -DQUILT_SANITIZE=address,undefined \
    -DQUILT_ENABLE_FUZZERS=ON
}

build() {
  install_packages
  configure
  log "building with $JOBS jobs"
  ninja -C "$BUILD_DIR" -j "$JOBS"
}

build_sanitizer_build() {
  configure_sanitizer_build
  log "building $SANITIZER_BUILD_DIR with $JOBS jobs"
  ninja -C "$SANITIZER_BUILD_DIR" -j "$JOBS"
}

run_tests() {
  build
  build_sanitizer_build
  log "running the lit, unit and fuzz suites, and the sanitizer build's"
  local results=$BUILD_DIR/test-results.json status=0
  local suites=("$BUILD_DIR/unittests")
  [[ -f $BUILD_DIR/test/lit.site.cfg.py ]] && suites+=("$BUILD_DIR/test")
  [[ -f $BUILD_DIR/fuzz/lit.site.cfg.py ]] && suites+=("$BUILD_DIR/fuzz")
  suites+=("$SANITIZER_BUILD_DIR/unittests" "$SANITIZER_BUILD_DIR/fuzz")
  "$LLVM_PREFIX/bin/lit" -sv -j "$JOBS" -o "$results" "${suites[@]}" || status=$?
  python3 - "$results" <<'PY'
import collections, json, sys
tests = json.load(open(sys.argv[1]))["tests"]
counts = collections.Counter(t["code"] for t in tests)
passed = counts["PASS"] + counts["XFAIL"]
failed = sum(counts[c] for c in ("FAIL", "XPASS", "TIMEOUT", "UNRESOLVED"))
skipped = counts["UNSUPPORTED"]
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
  log "tests finished"
  return $status
}

demo() {
  build
  local bin=$BUILD_DIR/bin example=$ROOT/examples/bert-ffn.mlir
  local out=$BUILD_DIR/demo
  mkdir -p "$out"

  log "1/4 GPU targets: the dynamic BERT feed-forward block as ukernel dispatches"
  log "    with H100 and MI300X candidates, and the cost model's report at M=80"
  for target in h100 mi300x; do
    "$bin/quilt-opt" "$example" --ukernel-attach-target=target=$target \
      --convert-linalg-to-ukernel -o "$out/bert-ffn.$target.mlir"
    printf '    %-7s %s dispatches, %s candidate micro-kernels: %s\n' "$target" \
      "$(grep -c 'ukernel.dispatch' "$out/bert-ffn.$target.mlir")" \
      "$(grep -o '#ukernel.config<' "$out/bert-ffn.$target.mlir" | wc -l)" \
      "$out/bert-ffn.$target.mlir"
  done
  "$bin/quilt-opt" "$out/bert-ffn.h100.mlir" \
    --ukernel-cost-report="shapes=80x3072x768 top=3" -o /dev/null 2>&1 | sed -n '1,12p'

  log "2/4 Why: the first GEMM at 80 and 1296 tokens, on an H100, an MI300X and this host"
  for target in h100 mi300x host; do
    "$bin/quiltc" explain --target $target --top 3 \
      "matmul f32 M=80 N=3072 K=768" "matmul f32 M=1296 N=3072 K=768" |
      grep -E '^(workload|target|chosen|why)'
  done

  log "3/4 Compile once for the GPUs (device code) and for the host: $out/bert-ffn.so (C entry _mlir_ciface_bert_ffn)"
  "$bin/quiltc" "$example" --target h100 --emit=ptx -o "$out/bert-ffn.h100.ptx"
  "$bin/quiltc" "$example" --target mi300x --emit=isa -o "$out/bert-ffn.mi300x.s"
  printf '    h100    %s kernels (PTX, sm_90a): %s\n' \
    "$(grep -c '^.visible .entry' "$out/bert-ffn.h100.ptx")" "$out/bert-ffn.h100.ptx"
  printf '    mi300x  %s kernels (AMDGCN, gfx942): %s\n' \
    "$(grep -c '^[[:space:]]*.amdhsa_kernel ' "$out/bert-ffn.mi300x.s")" "$out/bert-ffn.mi300x.s"
  "$bin/quiltc" "$example" --target host --emit=shared -o "$out/bert-ffn.so"

  log "4/4 Run it for M = 0, 1, 17, 80, 384 and check every output against C"
  cc -O2 "$ROOT/examples/bert-ffn-driver.c" -o "$out/bert-ffn-driver" -ldl -lm
  "$out/bert-ffn-driver" "$out/bert-ffn.so"

  # The GPU builds, run by the same C program on Quilt's emulators (no GPU
  # here): fewer tokens, as emulation is about a million instructions a
  # second.
  local target api format
  for target in h100 mi300x; do
    if [[ $target == h100 ]]; then api=cuda format=isa; else api=hip format=bin; fi
    local emulator=$BUILD_DIR/lib/libquilt_${api}_emulator.so
    if [[ ! -f $emulator ]]; then
      log "    (no $emulator: the $target build is not run here)"
      continue
    fi
    log "    the $target build on the emulated $target, M = 0, 1, 17: $out/bert-ffn.$target.so"
    "$bin/quiltc" "$example" --target $target --emit=shared --device-format=$format \
      -o "$out/bert-ffn.$target.so"
    QUILT_GPU_DRIVER=$emulator "$out/bert-ffn-driver" "$out/bert-ffn.$target.so" 0 1 17
  done
}

gpu_bench() {
  local target=${1:-h100}
  shift || true
  # Workload files: those named after the target, else every file of
  # bench/workloads (or of $QUILT_WORKLOADS).
  local files=("$@")
  if ((${#files[@]} == 0)); then
    files=("${QUILT_WORKLOADS:-$ROOT/bench/workloads}"/*.txt)
  fi
  local set=$target extra=()
  # The default kernels issue wgmma.mma_async with TMA loads; the earlier
  # forms stay one variable away.
  if [[ ${QUILT_NATIVE_WGMMA:-1} == 0 ]]; then
    set=$target-mma-sync
    extra=(--no-native-wgmma)
  elif [[ ${QUILT_TMA:-1} == 0 ]]; then
    set=$target-no-tma
    extra=(--no-tma)
  fi
  local bundles=$ROOT/bench/gpu/bundles/$set
  build
  local run=(python3 bench/gpu/run.py --model-sample 2)
  rm -rf "$bundles"
  for file in "${files[@]}"; do
    local name
    name=$(basename "$file" .txt)
    "$BUILD_DIR/bin/quilt-bench" --target "$target" --workloads "$file" \
      --bundle "$bundles/$name" "${extra[@]}"
    run+=("bench/gpu/bundles/$set/$name")
  done
  if nvidia-smi -L >/dev/null 2>&1 && python3 -c 'import torch' 2>/dev/null; then
    (cd "$ROOT" && "${run[@]}")
  else
    log "no NVIDIA GPU with PyTorch here: copy the repository (bench/gpu/bundles"
    log "included) to a machine with the GPU and run, in its root:"
    log "  ${run[*]}"
  fi
}

case ${1:-} in
  build) build ;;
  gpu-bench) shift; gpu_bench "$@" ;;
  test) run_tests ;;
  demo) demo ;;
  *)
    echo "usage: $0 {demo|test|build|gpu-bench [TARGET]}" >&2
    exit 2
    ;;
esac
