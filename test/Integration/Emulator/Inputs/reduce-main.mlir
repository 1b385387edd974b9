// A whole program with its own main, for mlir-runner: a product reduced to
// one number (linalg.reduce over both dimensions into a filled rank-0
// tensor), an element of the product (tensor.extract), and the product
// printed with printMemrefF32. On a GPU target none of it may dereference
// device memory in host code: the reduction and the rank-0 fill have no
// parallel loop to map and run as one-thread kernels, the extract reads
// through a kernel, and the print gets a host copy. A[i][k] = i - k and
// B[k][j] = k + j at M = 3, N = 4, K = 5 (exact in f32).
func.func @summary(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> (tensor<?x?xf32>, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s0 = tensor.empty() : tensor<f32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%c : tensor<?x?xf32>) outs(%s1 : tensor<f32>) dimensions = [0, 1]
    (%x: f32, %y: f32) {
      %z = arith.addf %x, %y : f32
      linalg.yield %z : f32
    }
  %total = tensor.extract %r[] : tensor<f32>
  %corner = tensor.extract %c[%c2, %c3] : tensor<?x?xf32>
  return %c, %total, %corner : tensor<?x?xf32>, f32, f32
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %m = arith.constant 3 : index
  %n = arith.constant 4 : index
  %k = arith.constant 5 : index
  %a = tensor.generate %m, %k {
  ^bb0(%i: index, %j: index):
    %d = arith.subi %i, %j : index
    %di = arith.index_cast %d : index to i32
    %f = arith.sitofp %di : i32 to f32
    tensor.yield %f : f32
  } : tensor<?x?xf32>
  %b = tensor.generate %k, %n {
  ^bb0(%i: index, %j: index):
    %d = arith.addi %i, %j : index
    %di = arith.index_cast %d : index to i32
    %f = arith.sitofp %di : i32 to f32
    tensor.yield %f : f32
  } : tensor<?x?xf32>
  %c, %total, %corner = call @summary(%a, %b)
    : (tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?x?xf32>, f32, f32)
  %u = tensor.cast %c : tensor<?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  vector.print str "total "
  vector.print %total : f32
  vector.print str "corner "
  vector.print %corner : f32
  return
}

// CHECK-NOT: quilt-emulator
// CHECK: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
// CHECK-NEXT: {{\[}}[-30,   -40,   -50,   -60],
// CHECK-NEXT:  [-20,   -25,   -30,   -35],
// CHECK-NEXT:  [-10,   -10,   -10,   -10]]
// CHECK-NEXT: total -330
// CHECK-NEXT: corner -10
