//===- Compiler.h - Compile a .mlir module to an artifact -------*- C++ -*-===//
//
// Part of the Quilt project. The one implementation of "compile this module
// for that target" behind quiltc, quilt-bench and the Python module.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_COMPILER_COMPILER_H
#define QUILT_COMPILER_COMPILER_H

#include <optional>
#include <string>
#include <string_view>

namespace quilt {

/// What to produce. MLIR and LLVM are text; Asm is target assembly; Object
/// is an ELF relocatable; Shared a shared library linked against Quilt's
/// runtime, written to CompileOptions::outputPath.
enum class EmitKind {
  MLIR,
  LLVM,
  Asm,
  Object,
  Shared,
  /// Device code of a GPU target: PTX text / cubin (NVIDIA), AMDGCN
  /// assembly / hsaco (AMD); `Isa` is whichever text the vendor has.
  Ptx,
  Cubin,
  Isa,
  Hsaco,
};

/// True for the kinds that are device code rather than host code.
bool isDeviceCode(EmitKind kind);

/// "mlir", "llvm", "asm", "obj", "shared"; nullopt otherwise.
std::optional<EmitKind> parseEmitKind(std::string_view text);

struct CompileOptions {
  /// A target name from the database (`quiltc targets`).
  std::string target = "host";
  /// An extra target database file, read before looking `target` up.
  std::string targetFile;
  /// cost_model, pad, patch or fixed=<index>.
  std::string policy = "cost_model";
  int maxCandidates = 16;
  /// A tuning database (quiltc tune) whose winners join the candidates and
  /// run for the shapes they were tuned for; empty for none.
  std::string tuningDb;
  /// A learned residual model (docs/tuning.md) whose corrected predictions
  /// decide which candidates are compiled; empty for none.
  std::string residualModel;
  EmitKind emit = EmitKind::Object;
  /// Where EmitKind::Shared writes the library (required for it).
  std::string outputPath;
  /// False compiles the same linalg with upstream MLIR's default lowering
  /// (bufferize, convert-linalg-to-loops, LLVM) instead of Quilt's
  /// micro-kernels: the baseline quilt-bench compares against.
  bool useMicroKernels = true;
  /// The directory holding libquilt_runtime.so (and, for GPU targets,
  /// libquilt_cuda_runtime.so / libquilt_hip_runtime.so), for linking shared
  /// libraries; empty means next to the running executable (../lib).
  std::string runtimeDir;
  /// GPU targets: compile device code for this chip instead of the
  /// target's (e.g. sm_90a, gfx942).
  std::string chip;
  /// GPU targets: the CUDA toolkit / ROCm-style directory to take ptxas or
  /// ld.lld from; empty searches the usual places.
  std::string toolkit;
  /// GPU targets: the device code embedded in host code (--emit=mlir, llvm,
  /// asm, obj, shared): "isa" (PTX / AMDGCN text, loaded through the
  /// driver's JIT, and what the PTX emulator runs), "bin" (cubin / hsaco),
  /// or "auto" (bin when the toolkit is found).
  std::string deviceFormat = "auto";
  /// sm_90a: issue wgmma candidates as wgmma.mma_async instead of mma.sync
  /// (convert-ukernel-to-gpu's `native-wgmma`). The default since every
  /// candidate ran correctly on the PTX emulator (docs/gpu-emulator.md).
  bool nativeWgmma = true;
  /// With nativeWgmma: load those kernels' tiles with TMA where the
  /// operands allow (convert-ukernel-to-gpu's `tma`); ignored without.
  bool tmaLoads = true;
  /// CPU targets: the threads the kernels run on (quilt-lower-to-host's
  /// `threads`; 0 means as many as OpenMP gives). Other than 1, the code
  /// calls LLVM's OpenMP runtime, and shared libraries link libomp.
  int threads = 1;
  /// Time the compilation: MLIR's pass timing for the pipeline, nested in
  /// the phases around it (parsing, LLVM translation, optimization, code
  /// generation, linking); the report goes to CompileResult::timingReport.
  bool timing = false;
  /// Verify the module after every pass of the pipeline, as quilt-opt does
  /// (a compiler developer's aid: a pass that breaks the IR is named).
  /// Without it the module is verified once, after the pipeline, as Clang
  /// verifies LLVM IR: per-pass verification was about a sixth of an NVIDIA
  /// GPU compile (docs/user-guide.md).
  bool verifyEachPass = false;
  /// A directory of compiled code to reuse and fill: GPU kernels, lowered
  /// and compiled, and host machine code
  /// (quilt-compile-gpu-kernels' `kernel-cache`, docs/user-guide.md); empty
  /// takes $QUILT_KERNEL_CACHE, and compiles every kernel when that is unset
  /// too.
  std::string kernelCache;
};

/// Where Quilt's runtime libraries are when CompileOptions::runtimeDir is
/// empty: next to the running executable (../lib), as in a build or an
/// installation.
std::string defaultRuntimeDir();

struct CompileResult {
  /// Empty on success; otherwise every diagnostic, one per line, as
  /// "<file>:<line>:<col>: error: ...".
  std::string error;
  /// The artifact for every kind but Shared (which is written to a file).
  std::string artifact;
  /// With CompileOptions::timing, MLIR's timing report (text), also when
  /// the compilation failed.
  std::string timingReport;
  bool ok() const { return error.empty(); }
};

/// Parses `source` (named `sourceName` in diagnostics), runs the pipeline for
/// the target's kind (quilt-lower-to-host, or quilt-lower-to-host-upstream
/// when !useMicroKernels: quilt-opt reproduces --emit=mlir with them) and
/// emits. Never aborts on bad input.
CompileResult compileSource(std::string_view source,
                            std::string_view sourceName,
                            const CompileOptions &options);

} // namespace quilt

#endif // QUILT_COMPILER_COMPILER_H
