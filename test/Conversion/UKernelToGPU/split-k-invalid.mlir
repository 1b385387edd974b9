// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=a100 --convert-ukernel-to-gpu -verify-diagnostics

// A split-K candidate's host code calls the runtime's workspace and
// arrival-counter entries by name, through MLIR's C interface: a module
// that declares either name otherwise is diagnosed, not miscompiled.
#sk = #ukernel.config<tile = 64x64x8, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask, split_k = 4>
func.func private @quilt_gpu_workspace(i64) -> !llvm.ptr
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  // expected-error @+1 {{'quilt_gpu_workspace' is reserved for Quilt's GPU runtime and must be declared as '(i64) -> memref<?xi8>' with llvm.emit_c_interface}}
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    candidates [#sk]
  return
}

// -----

// The right type without the C interface would take the descriptor in the
// wrong calling convention.
#sk = #ukernel.config<tile = 64x64x8, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask, split_k = 2>
func.func private @quilt_gpu_workspace(i64) -> memref<?xi8>
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  // expected-error @+1 {{'quilt_gpu_workspace' is reserved for Quilt's GPU runtime and must be declared as '(i64) -> memref<?xi8>' with llvm.emit_c_interface}}
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    candidates [#sk]
  return
}

// -----

#sk = #ukernel.config<tile = 64x64x8, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask, split_k = 3>
func.func private @quilt_gpu_arrival_counters(i64) -> memref<?xi8> attributes {llvm.emit_c_interface}
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  // expected-error @+1 {{'quilt_gpu_arrival_counters' is reserved for Quilt's GPU runtime and must be declared as '(i64) -> memref<?xi32>' with llvm.emit_c_interface}}
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    candidates [#sk]
  return
}

// -----

// A stream-K candidate takes its slots of partial sums from the same
// runtime entry.
#streamed = #ukernel.config<tile = 64x64x8, threads = 64, warps = 1x2, thread_tile = 8x8, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask, stream_k = 108>
func.func private @quilt_gpu_workspace(i64) -> memref<?xi32> attributes {llvm.emit_c_interface}
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  // expected-error @+1 {{'quilt_gpu_workspace' is reserved for Quilt's GPU runtime and must be declared as '(i64) -> memref<?xi8>' with llvm.emit_c_interface}}
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    candidates [#streamed]
  return
}
