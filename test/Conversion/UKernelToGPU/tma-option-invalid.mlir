// RUN: quilt-opt %s --ukernel-attach-target=target=h100 --convert-ukernel-to-gpu="tma=1" -verify-diagnostics

// TMA loads are a variant of the native wgmma kernels: asked for alone,
// every dispatch says what is missing.
#wg = #ukernel.config<tile = 128x128x64, threads = 128, warps = 4x1, thread_tile = 4x32, vector_width = 8, stages = 4, instruction = wgmma, boundary = mask>
func.func @matmul(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  // expected-error @+1 {{'ukernel.dispatch' op cannot be converted with option 'tma' alone: TMA loads the tiles of native wgmma kernels, add 'native-wgmma'}}
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#wg]
  return
}
