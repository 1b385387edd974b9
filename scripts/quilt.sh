#!/usr/bin/env bash
# One entry point behind the README's commands:
#   scripts/quilt.sh demo    install what is missing, build, run the main job
#   scripts/quilt.sh test    install what is missing, build, run every test
#   scripts/quilt.sh build   install what is missing and build
#
# Installs missing Debian packages non-interactively (idempotent: nothing is
# installed when everything is present), configures once with Ninja against
# Debian's LLVM/MLIR 22, and builds incrementally.
#
# Environment: QUILT_BUILD_DIR (default: build), QUILT_BUILD_TYPE (default:
# Release), QUILT_JOBS (default: nproc), QUILT_CMAKE_ARGS (extra arguments).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${QUILT_BUILD_DIR:-$ROOT/build}
BUILD_TYPE=${QUILT_BUILD_TYPE:-Release}
JOBS=${QUILT_JOBS:-$(nproc)}
LLVM_PREFIX=/usr/lib/llvm-22

PACKAGES=(
  cmake ninja-build g++ python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools lld-22
  libgtest-dev libbenchmark-dev
)

log() { printf '\033[1m[quilt]\033[0m %s\n' "$*"; }

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
    ${QUILT_CMAKE_ARGS:-}
}

build() {
  install_packages
  configure
  log "building with $JOBS jobs"
  ninja -C "$BUILD_DIR" -j "$JOBS"
}

run_tests() {
  build
  log "running the lit and unit test suites"
  local results=$BUILD_DIR/test-results.json status=0
  local suites=("$BUILD_DIR/unittests")
  [[ -f $BUILD_DIR/test/lit.site.cfg.py ]] && suites+=("$BUILD_DIR/test")
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
  return $status
}

demo() {
  build
  local bin=$BUILD_DIR/bin
  log "quilt-opt: attach the h100 target and verify a dynamic-shape dispatch"
  "$bin/quilt-opt" --ukernel-attach-target=target=h100 "$ROOT/examples/dispatch-h100.mlir"
  log "quiltc: which micro-kernel runs a dynamic matmul, and why"
  "$bin/quiltc" explain --target h100 --top 3 "matmul f16 M=1000 N=768 K=3072"
  "$bin/quiltc" explain --target host --top 3 "matmul f32 M=127 N=255 K=63"
}

case ${1:-} in
  build) build ;;
  test) run_tests ;;
  demo) demo ;;
  *)
    echo "usage: $0 {demo|test|build}" >&2
    exit 2
    ;;
esac
