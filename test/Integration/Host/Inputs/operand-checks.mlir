// Compiled by operand-checks.test; called by operand-checks-driver.c with
// sizes that disagree, null buffers, and then valid operands.

// C += A B, in place.
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>)
                outs(%c : memref<?x?xf32>)
  return
}

// A[s] B[s] + bias for each s: a batch_matmul with a fused bias epilogue.
#id = affine_map<(s, m, n) -> (s, m, n)>
#row = affine_map<(s, m, n) -> (n)>
func.func @batch_bias(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>,
                      %bias: tensor<?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %bn = tensor.dim %a, %c0 : tensor<?x?x?xf32>
  %m = tensor.dim %a, %c1 : tensor<?x?x?xf32>
  %n = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %e = tensor.empty(%bn, %m, %n) : tensor<?x?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
                            outs(%acc : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%v: f32, %x: f32, %out: f32):
    %s = arith.addf %v, %x : f32
    linalg.yield %s : f32
  } -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// out += conv(in, filter), NHWC / HWCF, strides 2x1, dilations 1x2, in place.
func.func @conv(%in: memref<?x?x?x?xf32>, %filter: memref<?x?x?x?xf32>,
                %out: memref<?x?x?x?xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 1]> : tensor<2xi64>,
                            dilations = dense<[1, 2]> : tensor<2xi64>}
    ins(%in, %filter : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>)
    outs(%out : memref<?x?x?x?xf32>)
  return
}
