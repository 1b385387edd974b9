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

//===----------------------------------------------------------------------===//
// UKernelToHost
//===----------------------------------------------------------------------===//

def ConvertUKernelToHost : Pass<"convert-ukernel-to-host", "::mlir::ModuleOp"> {
  let summary = "Generate CPU micro-kernels and run-time selection";
  let description = [{
    Lowers `ukernel.dispatch` ops on memrefs for a CPU target (vendor `cpu`):
    each call computes the GEMM-view sizes, lets `ukernel.select` (the cost
    model, at run time) pick a candidate or a main + remainder patch, and
    calls the chosen micro-kernel function on the main and the remainder
    region, once per batch index. Each (candidate, element types, epilogue,
    transposes, operand layouts) becomes one private function in the BLIS
    structure: the candidate's tile M/N/K are the cache blocks mc/nc/kc, its
    thread tile the mr x nr register block; B panels and A blocks are packed
    into contiguous f32 buffers (zero-padded, f16/bf16 converted, with
    vector loads along whichever dimension of the stored operand is
    contiguous), and the micro-kernel keeps the accumulators in vector
    registers across the K block. The epilogue is applied once, after the
    last K block; `math.erf` (GELU) becomes a polynomial, so the code needs
    no libm. An f16/bf16 or non-contiguous C is accumulated in an f32 copy.

    Every `ukernel.select` (the ones this pass creates and any already in the
    module) then becomes a call of Quilt's runtime, `quilt_rt_select`, with
    the selection spec (`quilt::formatSelectionSpec`) as a constant string
    and a per-select cache slot, so the program evaluates the same cost model
    as `quiltc explain`.

    Dispatches on tensors, for non-CPU targets, with candidates that are not
    `cpu_fma` or operands that are not strided, and convolutions (not yet
    implemented on the host) are diagnosed. Kernels are single-threaded.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def QuiltEmitCInterface : Pass<"quilt-emit-c-interface", "::mlir::ModuleOp"> {
  let summary = "Request C interface wrappers for public defined functions";
  let description = [{
    Sets `llvm.emit_c_interface` on every public `func.func` with a body, so
    that `convert-func-to-llvm` emits `_mlir_ciface_<name>` taking memref
    descriptors by pointer: the C ABI of a compiled Quilt library. Unlike
    upstream `llvm-request-c-wrappers` it leaves declarations alone, whose
    wrappers would call a `_mlir_ciface_` symbol the runtime does not have,
    and private helpers, which no C caller sees.
  }];
}

#endif // QUILT_CONVERSION_PASSES_TD
