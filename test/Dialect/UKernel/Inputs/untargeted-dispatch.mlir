// A dispatch with no target: neither its own nor its module's.
func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>)
         candidates [#ukernel.config<tile = 32x32x384, threads = 1, warps = 1x1, thread_tile = 8x16, vector_width = 16, stages = 1, instruction = cpu_fma, boundary = mask>] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
