//===- DownstreamPipeline.cpp - The downstream compiler's pipeline --------===//
//
// An example of a compiler built on an installed Quilt: its own pipeline,
// with its own options, that schedules Quilt's passes among its own (here
// upstream canonicalization stands in for the downstream compiler's
// front-end passes).
//
//===----------------------------------------------------------------------===//

#include "DownstreamPipeline.h"

#include "Conversion/Passes.h"
#include "Dialect/UKernel/Transforms/Passes.h"
#include "Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace downstream {

namespace {

struct LowerMatmulOptions : public PassPipelineOptions<LowerMatmulOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Quilt target to compile for"),
                             llvm::cl::init("host")};
  Option<bool> lowerToLLVM{
      *this, "lower-to-llvm",
      llvm::cl::desc("Continue with Quilt's host pipeline down to the LLVM "
                     "dialect (a CPU target); otherwise stop at "
                     "ukernel.dispatch"),
      llvm::cl::init(false)};
};

void buildLowerMatmul(OpPassManager &pm, const LowerMatmulOptions &options) {
  // The downstream compiler's own clean-up.
  pm.addPass(createCanonicalizerPass());

  // Quilt: attach the target, turn dynamic contractions into dispatches
  // over hardware-selected micro-kernels.
  ukernel::UKernelAttachTargetOptions attach;
  attach.targetName = options.target;
  pm.addPass(ukernel::createUKernelAttachTarget(attach));
  pm.addPass(quilt::createConvertLinalgToUKernel());
  if (!options.lowerToLLVM)
    return;

  // Quilt's host pipeline on the dispatches (the target is attached
  // already, so it is not given again).
  quilt::HostPipelineOptions host;
  quilt::buildLowerToHostPipeline(pm, host);
}

} // namespace

void registerDownstreamPipelines() {
  PassPipelineRegistration<LowerMatmulOptions>(
      "downstream-lower-matmul",
      "The downstream compiler's matmul lowering, built on Quilt's passes",
      buildLowerMatmul);
}

} // namespace downstream
