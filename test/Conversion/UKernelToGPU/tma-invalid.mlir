// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=h100 --convert-ukernel-to-gpu="native-wgmma=1 tma=1" -verify-diagnostics

// The host's call of the runtime's tensor-map entry needs the name: a
// module that declares it otherwise is diagnosed, not miscompiled.
#wg = #ukernel.config<tile = 128x128x64, threads = 128, warps = 4x1, thread_tile = 4x32, vector_width = 8, stages = 4, instruction = wgmma, boundary = mask>
func.func private @quilt_gpu_tile_map(i64) -> i64
func.func @matmul(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  // expected-error @+1 {{'quilt_gpu_tile_map' is reserved for Quilt's GPU runtime and must be declared as '(!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64) -> i32'}}
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#wg]
  return
}
