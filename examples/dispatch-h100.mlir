// A BERT-style dense layer with a dynamic token count: Y = gelu(X * W^T + b),
// f16 inputs, f32 accumulation, two candidate micro-kernels built for the
// H100's tensor cores. `quilt-opt --ukernel-attach-target=target=h100` checks
// each candidate against the H100's limits (threads, shared memory,
// registers).
#big = #ukernel.config<tile = 128x128x32, threads = 256, warps = 2x4, thread_tile = 8x8, vector_width = 8, stages = 3, instruction = mma_sync_f16, boundary = mask>
#small = #ukernel.config<tile = 64x64x32, threads = 128, warps = 2x2, thread_tile = 4x8, vector_width = 8, stages = 4, instruction = mma_sync_f16, boundary = mask>

func.func @dense_gelu(%x: tensor<?x768xf16>, %w: tensor<3072x768xf16>,
                      %bias: tensor<3072xf32>, %y: tensor<?x3072xf32>)
    -> tensor<?x3072xf32> {
  %r = ukernel.dispatch matmul transpose_rhs
         ins(%x, %w : tensor<?x768xf16>, tensor<3072x768xf16>)
         outs(%y : tensor<?x3072xf32>)
         bias(%bias : tensor<3072xf32>) epilogue [bias_add, gelu]
         candidates [#big, #small] -> tensor<?x3072xf32>
  return %r : tensor<?x3072xf32>
}
