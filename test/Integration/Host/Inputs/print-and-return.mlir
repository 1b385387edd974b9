// A function that prints its result with MLIR's printMemrefF32 (through a
// tensor.cast to tensor<*xf32>, as Buddy Compiler's programs do) and also
// returns it; main prints the returned tensor again.
func.func private @printMemrefF32(tensor<*xf32>)

func.func @product(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %u = tensor.cast %c : tensor<?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return %c : tensor<?x?xf32>
}

func.func @main() {
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %m = arith.constant 2 : index
  %n = arith.constant 3 : index
  %k = arith.constant 5 : index
  %a = tensor.splat %two[%m, %k] : tensor<?x?xf32>
  %b = tensor.splat %three[%k, %n] : tensor<?x?xf32>
  %c = call @product(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %u = tensor.cast %c : tensor<?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
