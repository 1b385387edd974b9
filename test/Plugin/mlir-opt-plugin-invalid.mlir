// The ukernel verifiers run inside upstream mlir-opt too.
//
// REQUIRES: quilt-plugin
// RUN: %upstream_mlir_opt --load-dialect-plugin=%quilt_plugin %s -verify-diagnostics

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{expects at least one candidate configuration}}
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) candidates [] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
