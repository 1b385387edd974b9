// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=a100 --convert-ukernel-to-gpu -verify-diagnostics

// The host code of a dispatch whose candidates stage in vector runs calls
// the runtime's operand-copy buffer by name, through MLIR's C interface
// (OperandRepack.cpp): a module that declares the name otherwise is
// diagnosed, not miscompiled.
#c = #ukernel.config<tile = 64x64x32, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 8, stages = 2, instruction = mma_sync_f16, boundary = mask>
func.func private @quilt_gpu_operand_copies(i64) -> memref<?xi8>
func.func @matmul(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  // expected-error @+1 {{'quilt_gpu_operand_copies' is reserved for Quilt's GPU runtime and must be declared as '(i64) -> memref<?xi8>' with llvm.emit_c_interface}}
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#c]
  return
}
