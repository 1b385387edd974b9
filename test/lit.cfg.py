# -*- Python -*-
# lit configuration for Quilt's FileCheck tests.

import os
import shutil
import subprocess
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "QUILT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".txt"]
config.excludes = ["CMakeLists.txt", "README.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.quilt_obj_root, "test")
# lit starts the longest tests first by the times of the last run in the
# build tree (.lit_test_times.txt there); a fresh build has none, and lit
# falls back to test/.lit_test_times.txt, the times of a CI run, so a cold
# run does not leave its longest tests (the pytest suite, the ptxas and
# emulator checks) for last. Refresh it from a build's copy when those
# change.

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%quilt_src_root", config.quilt_src_root))
config.substitutions.append(("%quilt_obj_root", config.quilt_obj_root))
config.substitutions.append(("%workloads", config.workloads_dir))
config.substitutions.append(("%python", sys.executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# `not`, `count` and `split-file` come from LLVM's tools directory.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.quilt_tools_dir, append_path=True)

# The NVIDIA compiles of a run share one kernel cache (quiltc --kernel-cache,
# docs/testing.md): the tests compile the same candidates many times over.
# Each run starts with it empty, so each kernel is still compiled once a run.
kernel_cache = os.path.join(config.quilt_obj_root, "test", "kernel-cache")
shutil.rmtree(kernel_cache, ignore_errors=True)
config.environment["QUILT_KERNEL_CACHE"] = kernel_cache

# Quilt's tools first, then LLVM's (FileCheck, not, count).
tool_dirs = [config.quilt_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("quilt-opt", unresolved="fatal"),
    ToolSubst("quiltc", unresolved="fatal"),
    ToolSubst("mlir-runner", unresolved="fatal"),
    ToolSubst("mlir-translate", unresolved="fatal"),
    # LLVM 22's, not an older one earlier on PATH.
    ToolSubst("llc", unresolved="ignore"),
    ToolSubst("ld.lld", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Shared libraries for execution tests under mlir-runner.
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(
    ("%mlir_c_runner_utils", os.path.join(llvm_lib_dir, "libmlir_c_runner_utils.so")))
config.substitutions.append(
    ("%mlir_runner_utils", os.path.join(llvm_lib_dir, "libmlir_runner_utils.so")))
config.substitutions.append(
    ("%quilt_runtime", os.path.join(config.quilt_obj_root, "lib", "libquilt_runtime.so")))
# LLVM's OpenMP runtime (libomp-22-dev), which host code compiled with
# threads != 1 calls.
libomp = os.path.join(llvm_lib_dir, "libomp.so")
config.substitutions.append(("%libomp", libomp))
if os.path.exists(libomp):
    config.available_features.add("openmp")

# NEON code runs under qemu-aarch64 when the AArch64 cross toolchain is
# there to build the runtime and the driver (qemu-user,
# g++-aarch64-linux-gnu).
if shutil.which("qemu-aarch64") and shutil.which("aarch64-linux-gnu-g++"):
    config.available_features.add("aarch64-qemu")

# The libraries quilt-bench was built to compare with (baseline-openblas,
# baseline-onednn, baseline-blis).
quilt_bench = os.path.join(config.quilt_tools_dir, "quilt-bench")
if os.path.exists(quilt_bench):
    listing = subprocess.run([quilt_bench, "--list-baselines"],
                             capture_output=True, text=True).stdout
    for line in listing.splitlines():
        name, _, status = line.partition(" ")
        if status == "built in":
            config.available_features.add("baseline-" + name)

# scikit-learn, which bench/host/train_residual.py trains the residual
# model with (Debian's python3-sklearn; scripts/quilt.sh installs it).
if subprocess.run([sys.executable, "-c", "import sklearn"],
                  stdout=subprocess.DEVNULL,
                  stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("sklearn")

# Features for tests that need tools or hardware CI does not have.
# Upstream mlir-opt with Quilt's plugin (lib/Plugin, built when Quilt links
# libMLIR.so as mlir-opt does).
quilt_plugin = os.path.join(config.quilt_obj_root, "lib", "QuiltPlugin.so")
config.substitutions.append(("%upstream_mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(("%quilt_plugin", quilt_plugin))
if config.quilt_plugin_built:
    config.available_features.add("quilt-plugin")
# examples/downstream builds against `cmake --install` of this build, with
# Ninja (the generator this build uses, so it is there).
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%ninja", config.make_program))
config.substitutions.append(("%mlir_cmake_dir", config.mlir_cmake_dir))
if config.cmake_generator == "Ninja":
    config.available_features.add("downstream-example")
# The Python module was built (QUILT_ENABLE_PYTHON): run its pytest suite
# with the interpreter it was built for.
if config.quilt_python_built:
    config.available_features.add("python-bindings")
    config.substitutions.append(("%quilt_python_dir", os.path.join(config.quilt_obj_root, "python")))
    config.substitutions.append(("%quilt_python", config.quilt_python_executable))
    # The suite is the longest test; lit often runs it last and alone, so
    # it spreads its files over the machine's cores itself (pytest-xdist,
    # Debian's python3-pytest-xdist) where that is installed.
    has_xdist = subprocess.run(
        [config.quilt_python_executable, "-c", "import xdist"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    workers = max(1, min(os.cpu_count() or 1, 4))
    config.substitutions.append(
        ("%pytest_parallel",
         f"-n {workers} --dist loadfile" if has_xdist and workers > 1 else ""))
# The GPU runtimes (runtime/, QuiltGpuRuntime.h): `cuda-runtime` /
# `hip-runtime` when the library was built, `cuda-gpu` / `hip-gpu` when its
# probe opens a device here (CI has none: tests that launch kernels are
# skipped there). The C compiler builds test programs against them.
config.substitutions.append(("%host_cc", config.host_cc))


def gpu_device_usable(probe):
    """Whether the GPU runtime's probe opens a device on this machine."""
    try:
        return subprocess.run([probe], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL,
                              timeout=120).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


for vendor, built in (("cuda", config.quilt_cuda_runtime_built),
                      ("hip", config.quilt_hip_runtime_built)):
    if not built:
        continue
    library = os.path.join(config.quilt_obj_root, "lib",
                           "libquilt_%s_runtime.so" % vendor)
    probe = os.path.join(config.quilt_tools_dir, "quilt-%s-probe" % vendor)
    config.available_features.add("%s-runtime" % vendor)
    config.substitutions.append(("%%quilt_%s_runtime" % vendor, library))
    config.substitutions.append(("%%quilt_%s_probe" % vendor, probe))
    if gpu_device_usable(probe):
        config.available_features.add("%s-gpu" % vendor)
# The emulators (docs/gpu-emulator.md): NVIDIA kernels run on this machine
# with QUILT_GPU_DRIVER=%quilt_cuda_emulator (the PTX emulator), AMD ones
# with %quilt_hip_emulator (the AMDGCN emulator), in every CI run.
for vendor, built in (
        ("cuda", config.quilt_cuda_emulator_built and
         config.quilt_cuda_runtime_built),
        ("hip", config.quilt_hip_emulator_built and
         config.quilt_hip_runtime_built)):
    if built:
        config.available_features.add("%s-emulator" % vendor)
        config.substitutions.append(
            ("%%quilt_%s_emulator" % vendor,
             os.path.join(config.quilt_obj_root, "lib",
                          "libquilt_%s_emulator.so" % vendor)))
# The sanitizer build (docs/testing.md: ASan + UBSan, no MLIR), when this
# build was configured with QUILT_SANITIZER_BUILD_DIR and it holds the
# runtimes and both emulators: Quilt's kernels, compiled here, run on them
# from a C program built with the same sanitizers (%sanitized_cc, Clang 22,
# whose sanitizer runtime the build's libraries expect).
sanitizer_lib = os.path.join(config.quilt_sanitizer_build_dir, "lib")
sanitized_cc = shutil.which("clang-22")
if config.quilt_sanitizer_build_dir and sanitized_cc and all(
        os.path.exists(os.path.join(sanitizer_lib, name))
        for name in ("libquilt_runtime.so", "libquilt_cuda_runtime.so",
                     "libquilt_cuda_emulator.so", "libquilt_hip_runtime.so",
                     "libquilt_hip_emulator.so")):
    config.available_features.add("sanitizer-build")
    config.substitutions.append(("%sanitized_lib", sanitizer_lib))
    config.substitutions.append(
        ("%sanitized_cc", sanitized_cc +
         " -fsanitize=address,undefined -fno-sanitize-recover=all"))
# The allocator Quilt's compilers link (cmake/QuiltFastMalloc.cmake), for
# the Python interpreter that compiles in-process: `env %fast_malloc ...`.
config.substitutions.append(
    ("%fast_malloc",
     "LD_PRELOAD=" + config.quilt_tcmalloc if config.quilt_tcmalloc else ""))
# The CUDA toolkit's libcuda.so stub: every driver symbol, no driver.
if config.cuda_driver_stub and os.path.exists(config.cuda_driver_stub):
    config.available_features.add("cuda-driver-stub")
    config.substitutions.append(("%cuda_driver_stub", config.cuda_driver_stub))

# Device code checks (test/Integration/GPU): ptxas from the CUDA toolkit
# (resource checks), ld.lld for hsaco links.

ptxas = None
for toolkit in [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_ROOT", "CUDA_PATH")] + ["/usr/local/cuda"]:
    if toolkit and os.path.exists(os.path.join(toolkit, "bin", "ptxas")):
        ptxas = os.path.join(toolkit, "bin", "ptxas")
        break
ptxas = ptxas or shutil.which("ptxas")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
if os.path.exists("/usr/lib/llvm-22/bin/ld.lld") or shutil.which("ld.lld"):
    config.available_features.add("ld.lld")
