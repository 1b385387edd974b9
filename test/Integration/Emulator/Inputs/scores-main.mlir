// A whole program with its own main, for mlir-runner: attention scores
// (a dynamic matmul, a folded fill, softmax) on inputs main builds with
// tensor.generate, A[i][k] = (i - k) / 8 and B[k][j] = ((k + 2j) mod 5) / 16
// at M = 3, N = 5, K = 37, printed with printMemrefF32. The generates and
// softmax become upstream-mapped kernels, the matmul Quilt's dispatch.
// Expected output (NumPy, float64, rounded as printMemrefF32 prints):
//   [[0.253936, 0.190189, 0.194699, 0.25196, 0.109216],
//    [0.24899, 0.192404, 0.195434, 0.250943, 0.112229],
//    [0.244089, 0.194604, 0.196131, 0.249877, 0.115299]]
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

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %m = arith.constant 3 : index
  %n = arith.constant 5 : index
  %k = arith.constant 37 : index
  %a = tensor.generate %m, %k {
  ^bb0(%i: index, %j: index):
    %d = arith.subi %i, %j : index
    %di = arith.index_cast %d : index to i32
    %f = arith.sitofp %di : i32 to f32
    %s = arith.constant 0.125 : f32
    %v = arith.mulf %f, %s : f32
    tensor.yield %v : f32
  } : tensor<?x?xf32>
  %b = tensor.generate %k, %n {
  ^bb0(%i: index, %j: index):
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %t = arith.muli %j, %c2 : index
    %u = arith.addi %i, %t : index
    %r = arith.remui %u, %c5 : index
    %ri = arith.index_cast %r : index to i32
    %f = arith.sitofp %ri : i32 to f32
    %s = arith.constant 0.0625 : f32
    %v = arith.mulf %f, %s : f32
    tensor.yield %v : f32
  } : tensor<?x?xf32>
  %s = call @scores(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %u = tensor.cast %s : tensor<?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

// With QUILT_GPU_VERBOSE=1 any failed GPU call would be printed first.
// SCORES-NOT: quilt-gpu:
// SCORES: rank = 2 offset = 0 sizes = [3, 5] strides = [5, 1] data =
// SCORES-NEXT: [0.253936, 0.190189, 0.194699, 0.25196, 0.109216],
// SCORES-NEXT: [0.24899, 0.192404, 0.195434, 0.250943, 0.112229],
// SCORES-NEXT: [0.244089, 0.194604, 0.196131, 0.249877, 0.115299]]
