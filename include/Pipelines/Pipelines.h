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

struct HostPipelineOptions
    : public mlir::PassPipelineOptions<HostPipelineOptions> {
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Target to attach from the database (see `quiltc "
                     "targets`); empty keeps the module's ukernel.target"),
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
  Option<bool> bufferDeallocation{
      *this, "buffer-deallocation",
      llvm::cl::desc("Insert deallocations after bufferization (ownership-"
                     "based). The input must then not free buffers itself; "
                     "turn it off for memref code that does"),
      llvm::cl::init(true)};
  Option<bool> cInterface{
      *this, "c-interface",
      llvm::cl::desc("Emit _mlir_ciface_<name> wrappers (memref descriptors "
                     "by pointer) for public functions"),
      llvm::cl::init(true)};
};

/// From linalg on tensors or memrefs (or ukernel.dispatch) to the LLVM
/// dialect for a CPU target: attach the target, form dispatches, bufferize,
/// generate the micro-kernels and the run-time selection, lower to LLVM.
void buildLowerToHostPipeline(mlir::OpPassManager &pm,
                              const HostPipelineOptions &options);

/// The end of every host pipeline: leftover linalg as loops, then scf,
/// vector, memref, math, arith, index, cf and func to the LLVM dialect, with
/// C interface wrappers for public functions when `cInterface`.
void buildLowerToLLVMPipeline(mlir::OpPassManager &pm, bool cInterface);

/// Upstream MLIR's default lowering of the same input, without Quilt:
/// bufferization as in quilt-lower-to-host, linalg as loops, then LLVM.
void buildUpstreamHostPipeline(mlir::OpPassManager &pm);

/// Registers `quilt-lower-to-host` and `quilt-lower-to-host-upstream`.
void registerQuiltPipelines();

} // namespace quilt

#endif // QUILT_PIPELINES_PIPELINES_H
