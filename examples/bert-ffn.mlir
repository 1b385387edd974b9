// The feed-forward block of a BERT-base layer with a dynamic number of
// tokens M (batch x sequence length), in plain linalg on tensors:
//
//   H = gelu(X * W1 + b1)      X: M x 768, W1: 768 x 3072
//   Y = H * W2 + b2            W2: 3072 x 768
//
// Quilt compiles it once; each call picks micro-kernels for the actual M.
//   quiltc examples/bert-ffn.mlir --target host --emit=shared -o bert-ffn.so
//   quilt-opt examples/bert-ffn.mlir --ukernel-attach-target=target=h100 \
//     --convert-linalg-to-ukernel --ukernel-cost-report=shapes=80x3072x768
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>

func.func @bert_ffn(%x: tensor<?x768xf32>,
                    %w1: tensor<768x3072xf32>, %b1: tensor<3072xf32>,
                    %w2: tensor<3072x768xf32>, %b2: tensor<768xf32>)
    -> tensor<?x768xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x768xf32>

  %h_empty = tensor.empty(%m) : tensor<?x3072xf32>
  %h_acc = linalg.fill ins(%zero : f32) outs(%h_empty : tensor<?x3072xf32>) -> tensor<?x3072xf32>
  %xw1 = linalg.matmul ins(%x, %w1 : tensor<?x768xf32>, tensor<768x3072xf32>)
                       outs(%h_acc : tensor<?x3072xf32>) -> tensor<?x3072xf32>
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xw1, %b1 : tensor<?x3072xf32>, tensor<3072xf32>) outs(%h_empty : tensor<?x3072xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    // GELU, erf form: 0.5 * x * (1 + erf(x / sqrt(2)))
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.707106781186547524 : f32
    %s = arith.addf %v, %b : f32
    %t = arith.mulf %s, %rsqrt2 : f32
    %e = math.erf %t : f32
    %p = arith.addf %e, %one : f32
    %hs = arith.mulf %s, %half : f32
    %g = arith.mulf %hs, %p : f32
    linalg.yield %g : f32
  } -> tensor<?x3072xf32>

  %y_empty = tensor.empty(%m) : tensor<?x768xf32>
  %y_acc = linalg.fill ins(%zero : f32) outs(%y_empty : tensor<?x768xf32>) -> tensor<?x768xf32>
  %hw2 = linalg.matmul ins(%h, %w2 : tensor<?x3072xf32>, tensor<3072x768xf32>)
                       outs(%y_acc : tensor<?x768xf32>) -> tensor<?x768xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%hw2, %b2 : tensor<?x768xf32>, tensor<768xf32>) outs(%y_empty : tensor<?x768xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x768xf32>
  return %y : tensor<?x768xf32>
}
