// Elementwise arith and math written on whole tensors, as exporters do
// (tanh(A x B + R) * s): they become generics first, which the product then
// fuses as its epilogue.

func.func @tanh_residual(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %r: tensor<?x?xf32>, %s: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sum = arith.addf %c, %r : tensor<?x?xf32>
  %t = math.tanh %sum : tensor<?x?xf32>
  %out = arith.mulf %t, %s : tensor<?x?xf32>
  return %out : tensor<?x?xf32>
}
