//===- Pipelines.h - Quilt's lowering pipelines -----------------*- C++ -*-===//
//
// Part of the Quilt project. Each pipeline is built in one place and used by
// every tool: quilt-opt registers it as a pass pipeline, quiltc and the
// Python module call the builder directly.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_PIPELINES_PIPELINES_H
#define QUILT_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace quilt {

/// The options every lowering pipeline takes: where the target comes from,
/// how dispatches are formed, bufferization and the C entry points.
template <typename Derived>
struct CommonPipelineOptions : public mlir::PassPipelineOptions<Derived> {
  template <typename T>
  using Option =
      typename mlir::PassPipelineOptions<Derived>::template Option<T>;

  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Target to attach from the database (host, h100, "
                     "mi300x, ...; see `quiltc targets`); empty keeps the "
                     "module's ukernel.target"),
      llvm::cl::init("")};
  Option<std::string> targetFile{
      *this, "target-file",
      llvm::cl::desc("Extra target database file to read before looking "
                     "`target` up"),
      llvm::cl::init("")};
  Option<std::string> policy{
      *this, "policy",
      llvm::cl::desc("Run-time selection policy: cost_model, pad, patch or "
                     "fixed=<i>"),
      llvm::cl::init("cost_model")};
  Option<int64_t> maxCandidates{
      *this, "max-candidates",
      llvm::cl::desc("Largest number of micro-kernel candidates per dispatch"),
      llvm::cl::init(16)};
  Option<std::string> tuningDb{
      *this, "tuning-db",
      llvm::cl::desc("Tuning database (quiltc tune) whose measured winners "
                     "join the dispatches' candidates and are selected for "
                     "the shapes they were tuned for"),
      llvm::cl::init("")};
  Option<std::string> residualModel{
      *this, "residual-model",
      llvm::cl::desc("Learned residual model whose corrected predictions "
                     "decide which candidates are kept"),
      llvm::cl::init("")};
  Option<bool> bufferDeallocation{
      *this, "buffer-deallocation",
      llvm::cl::desc("Insert deallocations after bufferization (ownership-"
                     "based); buffers the input frees itself are freed by it "
                     "instead (quilt-adopt-deallocations)"),
      llvm::cl::init(true)};
  Option<bool> cInterface{
      *this, "c-interface",
      llvm::cl::desc("Emit _mlir_ciface_<name> wrappers (memref descriptors "
                     "by pointer) for public functions"),
      llvm::cl::init(true)};
};

/// Options of `quilt-lower-to-host`.
struct HostPipelineOptions : public CommonPipelineOptions<HostPipelineOptions> {
  Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads the micro-kernels run on: 1 generates "
                     "sequential code; N > 1 OpenMP parallel loops on N "
                     "threads; 0 on as many as the OpenMP runtime gives "
                     "(OMP_NUM_THREADS). Code with threads != 1 calls "
                     "libomp"),
      llvm::cl::init(1)};
};

/// Options of `quilt-lower-to-nvvm` and `quilt-lower-to-rocdl`.
struct GpuPipelineOptions : public CommonPipelineOptions<GpuPipelineOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Compile device code for this chip (sm_90a, gfx942, "
                     "...) instead of the target's"),
      llvm::cl::init("")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Device code in the binary: isa (PTX / AMDGCN "
                     "assembly), bin (cubin through ptxas / hsaco through "
                     "ld.lld), or auto: bin when the tool is found, else "
                     "isa"),
      llvm::cl::init("auto")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit (with bin/ptxas) or ROCm-style directory "
                     "(llvm/bin/ld.lld, amdgcn/bitcode); empty searches the "
                     "usual places"),
      llvm::cl::init("")};
  Option<std::string> kernelCache{
      *this, "kernel-cache",
      llvm::cl::desc("A directory of compiled kernels to reuse and fill "
                     "(quilt-compile-gpu-kernels); empty compiles every "
                     "kernel"),
      llvm::cl::init("")};
  Option<bool> nativeWgmma{
      *this, "native-wgmma",
      llvm::cl::desc("Issue wgmma candidates as wgmma.mma_async on sm_90a "
                     "(convert-ukernel-to-gpu's native-wgmma); on by "
                     "default, native-wgmma=0 issues them as mma.sync"),
      llvm::cl::init(true)};
  Option<bool> tmaLoads{
      *this, "tma",
      llvm::cl::desc("Load the tiles of native wgmma kernels with TMA where "
                     "the operands allow (convert-ukernel-to-gpu's tma); on "
                     "by default, and without effect when native-wgmma=0"),
      llvm::cl::init(true)};
};

/// The GPU vendors a pipeline lowers device code for.
enum class GpuVendor { NVIDIA, AMD };

/// From dynamic-shape linalg to LLVM: Quilt's kernels (and any remaining
/// linalg op, mapped to the GPU) in a gpu.binary for the vendor, host code
/// with run-time selection and launches through the mgpu* runtime ABI.
void buildLowerToGpuPipeline(mlir::OpPassManager &pm, GpuVendor vendor,
                             const GpuPipelineOptions &options);

/// The `toolkit=` gpu-module-to-binary should use for `vendor` and whether
/// it can produce binaries (ptxas / ld.lld found); empty when nothing was
/// found. Reads options.toolkit first, then CUDA_HOME/CUDA_ROOT/CUDA_PATH
/// or ROCM_PATH, then the usual install locations.
std::string findGpuToolkit(GpuVendor vendor, const std::string &requested);

/// From linalg on tensors or memrefs (or ukernel.dispatch) to the LLVM
/// dialect for a CPU target: attach the target, form dispatches, bufferize,
/// generate the micro-kernels and the run-time selection, lower to LLVM.
void buildLowerToHostPipeline(mlir::OpPassManager &pm,
                              const HostPipelineOptions &options);

/// The end of every host pipeline: leftover linalg as loops, then scf,
/// vector, memref, math, arith, index, cf and func to the LLVM dialect, with
/// C interface wrappers for public functions when `cInterface`.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm, bool cInterface);

/// What the front end shared by every pipeline needs: the target, how
/// candidates are generated and selected, the tuning database and the
/// residual model.
struct DispatchFrontEndOptions {
  std::string target, targetFile, policy = "cost_model", tuningDb;
  /// A learned residual model for candidate pruning; empty for none.
  std::string residualModel;
  int64_t maxCandidates = 16;
  /// The host kernels' threads, which a tuning database must match.
  int64_t threads = 1;
};

/// The start every pipeline shares: attach `target` (when not empty) from
/// the database plus `targetFile`, turn linalg contractions into dispatches
/// with at most `maxCandidates` candidates under `policy`, add the tuning
/// database's winners (when given), clean up.
void buildDispatchFrontEnd(mlir::OpPassManager &pm,
                           const DispatchFrontEndOptions &options);

/// A pipeline's options as the front end takes them.
template <typename Derived>
DispatchFrontEndOptions
frontEndOptions(const CommonPipelineOptions<Derived> &options,
                int64_t threads) {
  DispatchFrontEndOptions result;
  result.target = options.target;
  result.targetFile = options.targetFile;
  result.policy = options.policy;
  result.tuningDb = options.tuningDb;
  result.residualModel = options.residualModel;
  result.maxCandidates = options.maxCandidates;
  result.threads = threads;
  return result;
}

/// One-shot bufferization with identity-layout function boundaries (the C
/// ABI), optionally with ownership-based deallocation.
void buildBufferizationPipeline(mlir::OpPassManager &pm, bool deallocate);

/// Upstream MLIR's default lowering of the same input, without Quilt:
/// bufferization as in quilt-lower-to-host, linalg as loops, then LLVM.
void buildUpstreamHostPipeline(mlir::OpPassManager &pm);

/// Registers `quilt-lower-to-host` and `quilt-lower-to-host-upstream`.
void registerQuiltPipelines();

/// quilt-lower-to-nvvm and quilt-lower-to-rocdl.
void registerQuiltGpuPipelines();

} // namespace quilt

#endif // QUILT_PIPELINES_PIPELINES_H
