// Attention scores: softmax over each row of A x B. linalg.softmax is an
// aggregate op, decomposed into reductions and elementwise generics before
// any lowering.

func.func @scores(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %o = tensor.empty(%m, %n) : tensor<?x?xf32>
  %s = linalg.softmax dimension(1) ins(%c : tensor<?x?xf32>)
                      outs(%o : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}
