//===- Passes.td - Quilt conversion passes -----------------*- tablegen -*-===//
//
// Part of the Quilt project.
//
//===----------------------------------------------------------------------===//

#ifndef QUILT_CONVERSION_PASSES_TD
#define QUILT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// LinalgToUKernel
//===----------------------------------------------------------------------===//

def ConvertLinalgToUKernel : Pass<"convert-linalg-to-ukernel", "::mlir::ModuleOp"> {
  let summary = "Turn dynamic-shape linalg contractions into ukernel dispatches";
  let description = [{
    Rewrites `linalg.matmul` (including transposed operands expressed through
    its indexing maps), `linalg.batch_matmul`, `linalg.conv_2d_nhwc_hwcf` and
    `linalg.conv_2d_nchw_fchw` on tensors or memrefs, with f32, f16 or bf16
    inputs, into `ukernel.dispatch` ops whose candidates the cost-model
    library generates for the module's target (`ukernel.target`, attached by
    `ukernel-attach-target`). A single elementwise consumer that adds a
    1-D bias along N, applies ReLU or GELU (a `linalg.generic`, or
    `linalg.add`/`linalg.max` forms) is fused as the dispatch's epilogue.

    Ops it does not handle (other linalg ops, integer types, contractions
    whose accumulator is not f32 or the input type) are left untouched.
  }];
  let options = [
    Option<"maxCandidates", "max-candidates", "int64_t", /*default=*/"16",
           "Largest number of micro-kernel candidates per dispatch">,
    Option<"policy", "policy", "std::string", /*default=*/"\"cost_model\"",
           "Run-time selection policy: cost_model, pad, patch or fixed=<i>">,
    Option<"fuseEpilogues", "fuse-epilogues", "bool", /*default=*/"true",
           "Fuse a bias-add/ReLU/GELU consumer into the dispatch">
  ];
  let dependentDialects = [
    "::mlir::ukernel::UKernelDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

#endif // QUILT_CONVERSION_PASSES_TD
