//===- HostPipeline.cpp - quilt-lower-to-host -----------------------------===//
//
// Part of the Quilt project. The one definition of the CPU pipeline: from
// linalg contractions with dynamic sizes to the LLVM dialect, with Quilt's
// micro-kernels and run-time selection in between.
//
//===----------------------------------------------------------------------===//

#include "Pipelines/Pipelines.h"

#include "Conversion/Passes.h"
#include "Dialect/UKernel/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ComplexToLLVM/ComplexToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void quilt::buildBufferizationPipeline(OpPassManager &pm, bool deallocate) {
  // Tensors to buffers; dispatches update their init in place. Functions
  // take and return plain (identity-layout) memrefs: the C ABI.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // A loop whose iteration writes a new tensor (a matmul into a fresh init,
  // or into one it also reads) yields a new buffer; the deallocation
  // pipeline frees the old one.
  bufferize.allowReturnAllocsFromLoops = true;
  // Printing a tensor (MLIR's runner utilities) only reads it.
  pm.addPass(createQuiltMarkRunnerUtilsReads());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  if (deallocate) {
    // Buffers the input frees itself are freed by the pipeline instead,
    // unless a function manages its memory itself (an input bufferized
    // before): upstream's deallocation pipeline, with its ownership step
    // leaving such functions alone.
    pm.addPass(createQuiltAdoptDeallocations());
    memref::ExpandReallocPassOptions expandRealloc;
    expandRealloc.emitDeallocs = false;
    pm.addPass(memref::createExpandReallocPass(expandRealloc));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createQuiltBufferDeallocation());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
    pm.addPass(bufferization::createLowerDeallocationsPass());
    pm.addPass(createCSEPass());
    pm.addPass(createCanonicalizerPass());
  }
  // Clones the deallocation pipeline inserts (e.g. for a returned view of an
  // argument) become alloc + copy.
  pm.addPass(createConvertBufferizationToMemRefPass());
}

void quilt::buildDispatchFrontEnd(OpPassManager &pm,
                                  const DispatchFrontEndOptions &options) {
  // What no pipeline compiles is refused where it is, not deep inside.
  pm.addPass(createQuiltCheckInput());
  // Elementwise arith and math on tensors become generics (fusable
  // epilogues, or kernels of their own); named ops that stand for several
  // (softmax, pack) become the ops they stand for, which the fusion front
  // end and every lowering know.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createQuiltDecomposeAggregateOps());
  // Dispatches: target, candidates, cleanup.
  if (!options.target.empty()) {
    ukernel::UKernelAttachTargetOptions attach;
    attach.targetName = options.target;
    attach.targetFile = options.targetFile;
    pm.addPass(ukernel::createUKernelAttachTarget(attach));
  }
  ConvertLinalgToUKernelOptions toUKernel;
  toUKernel.maxCandidates = options.maxCandidates;
  toUKernel.policy = options.policy;
  toUKernel.residualModel = options.residualModel;
  pm.addPass(createConvertLinalgToUKernel(toUKernel));
  if (!options.tuningDb.empty()) {
    ukernel::UKernelApplyTuningDbOptions tuning;
    tuning.databasePath = options.tuningDb;
    tuning.targetFile = options.targetFile;
    tuning.threads = options.threads;
    pm.addPass(ukernel::createUKernelApplyTuningDb(tuning));
  }
  // Before bufferization, reads through a `to_buffer` stay reads of the
  // buffer: the input may have written through it (an in-place cache
  // update), which plain canonicalization would not see.
  pm.addPass(createQuiltBufferSafeCanonicalize());
  pm.addPass(createCSEPass());
}

void quilt::buildLowerToHostPipeline(OpPassManager &pm,
                                     const HostPipelineOptions &options) {
  // A library's functions say what they take (before bufferization).
  if (options.cInterface)
    pm.addPass(createQuiltRecordSignatures());
  buildDispatchFrontEnd(pm, frontEndOptions(options, options.threads));
  buildBufferizationPipeline(pm, options.bufferDeallocation);
  // Buffers sized by the caller's operands: absurd sizes are an error
  // status, not a wrapped size.
  pm.addPass(createQuiltGuardAllocationSizes());

  // Micro-kernels and the run-time selection; multi-threaded kernels'
  // parallel loops become OpenMP (libomp at run time).
  ConvertUKernelToHostOptions toHost;
  toHost.threads = options.threads;
  pm.addPass(createConvertUKernelToHost(toHost));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.threads != 1) {
    ConvertSCFToOpenMPPassOptions openmp;
    openmp.numThreads = static_cast<unsigned>(options.threads);
    pm.addPass(createConvertSCFToOpenMPPass(openmp));
    // The pass wraps each parallel body in a memref.alloca_scope, which
    // cannot hold the blocks scf-to-cf makes; the kernels allocate on the
    // heap, so the scopes are empty and fold away.
    pm.addPass(createCanonicalizerPass());
  }

  buildLowerToLLVMPipeline(pm, options.cInterface);
}

void quilt::buildLowerToLLVMPipeline(OpPassManager &pm, bool cInterface) {
  // Whatever linalg remains (fills, elementwise ops the front end did not
  // fuse) runs as loops; then everything to the LLVM dialect. The
  // micro-kernels' vectors already have the target's width.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Copies between strided views would call memrefCopy, which libraries
  // do not link: loops instead.
  pm.addPass(createQuiltStridedCopiesToLoops());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  // MLIR 22's expand-strided-metadata crashes on some dynamic expand_shapes.
  pm.addPass(createQuiltExpandShapesToCasts());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  // Complex products and epilogues (upstream loops) compute on {re, im}.
  pm.addPass(createConvertComplexToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  // Vector canonicalizations leave ub.poison for undefined lanes.
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  if (cInterface)
    pm.addPass(createQuiltEmitCInterface());
  pm.addPass(createConvertFuncToLLVMPass());
  if (cInterface)
    pm.addPass(createQuiltEmitPackedInterface());
  // Multi-threaded kernels' OpenMP regions (after func: this pass converts
  // functions too, and the C interface needs them as func.func).
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  // Whatever no pattern converted is an error here, not silent output.
  pm.addPass(createQuiltCheckLowered());
}

void quilt::buildUpstreamHostPipeline(OpPassManager &pm) {
  // The same linalg without Quilt: bufferized alike, every linalg op as
  // loops. quilt-bench's baseline, so the comparison isolates the
  // micro-kernels.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createQuiltDecomposeAggregateOps());
  buildBufferizationPipeline(pm, /*deallocate=*/true);
  buildLowerToLLVMPipeline(pm, /*cInterface=*/true);
}

void quilt::registerQuiltPipelines() {
  PassPipelineRegistration<HostPipelineOptions>(
      "quilt-lower-to-host",
      "Lower dynamic-shape linalg contractions to the LLVM dialect for a "
      "CPU: Quilt micro-kernels, run-time selection by the cost model, C "
      "interface wrappers",
      buildLowerToHostPipeline);
  PassPipelineRegistration<>(
      "quilt-lower-to-host-upstream",
      "The baseline quilt-bench measures: the same bufferization and LLVM "
      "lowering as quilt-lower-to-host, with linalg as plain loops and no "
      "micro-kernels",
      buildUpstreamHostPipeline);
}
