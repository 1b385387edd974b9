// Compiled by result-sizes.test: a product returning a new tensor, which
// the compiled function allocates with the sizes its operands give.
func.func @product(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                      outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %mm : tensor<?x?xf32>
}
