// A matmul inside a loop: each step multiplies the running product by B
// (A x B^steps); the loop carries a new tensor every iteration.

func.func @power(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %steps: index) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %r = scf.for %i = %c0 to %steps step %c1 iter_args(%acc = %a) -> tensor<?x?xf32> {
    %e = tensor.empty(%m, %n) : tensor<?x?xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
    %p = linalg.matmul ins(%acc, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                       outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
    scf.yield %p : tensor<?x?xf32>
  }
  return %r : tensor<?x?xf32>
}
