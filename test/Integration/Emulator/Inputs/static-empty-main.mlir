// Products with a static size of 0, for mlir-runner: a K = 0 product with a
// folded zero fill and a bias is the bias in every row, and an M = 0 one
// has no rows. Nothing to multiply, so no dispatch: the ops stay linalg
// (loops on the host, upstream-mapped kernels on a GPU), which compute
// exactly that.
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @empty_sum(%a: tensor<4x0xf16>, %b: tensor<0x5xf16>,
                     %bias: tensor<5xf32>) -> tensor<4x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x5xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x0xf16>, tensor<0x5xf16>)
                      outs(%acc : tensor<4x5xf32>) -> tensor<4x5xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<4x5xf32>, tensor<5xf32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%v: f32, %x: f32, %out: f32):
    %s = arith.addf %v, %x : f32
    linalg.yield %s : f32
  } -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

func.func @no_rows(%a: tensor<0x7xf32>, %b: tensor<7x5xf32>) -> tensor<0x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<0x5xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<0x5xf32>) -> tensor<0x5xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<0x7xf32>, tensor<7x5xf32>)
                      outs(%acc : tensor<0x5xf32>) -> tensor<0x5xf32>
  return %mm : tensor<0x5xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %a = tensor.empty() : tensor<4x0xf16>
  %b = tensor.empty() : tensor<0x5xf16>
  %bias = tensor.generate {
  ^bb0(%j: index):
    %ji = arith.index_cast %j : index to i32
    %f = arith.sitofp %ji : i32 to f32
    %half = arith.constant 0.5 : f32
    %v = arith.subf %f, %half : f32
    tensor.yield %v : f32
  } : tensor<5xf32>
  %y = call @empty_sum(%a, %b, %bias) : (tensor<4x0xf16>, tensor<0x5xf16>, tensor<5xf32>) -> tensor<4x5xf32>
  %u = tensor.cast %y : tensor<4x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()

  %one = arith.constant 1.0 : f32
  %a0 = tensor.empty() : tensor<0x7xf32>
  %b7 = tensor.splat %one : tensor<7x5xf32>
  %r = call @no_rows(%a0, %b7) : (tensor<0x7xf32>, tensor<7x5xf32>) -> tensor<0x5xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %r, %c0 : tensor<0x5xf32>
  %columns = tensor.dim %r, %c1 : tensor<0x5xf32>
  vector.print str "no_rows: "
  vector.print %rows : index
  vector.print %columns : index
  return
}

// CHECK-NOT: error
// CHECK: Unranked Memref {{.*}} rank = 2 offset = 0 sizes = [4, 5] strides = [5, 1] data =
// CHECK-NEXT: {{\[}}[-0.5,   0.5,   1.5,   2.5,   3.5],
// CHECK-NEXT:  [-0.5,   0.5,   1.5,   2.5,   3.5],
// CHECK-NEXT:  [-0.5,   0.5,   1.5,   2.5,   3.5],
// CHECK-NEXT:  [-0.5,   0.5,   1.5,   2.5,   3.5]]
// CHECK-NEXT: no_rows: 0
// CHECK-NEXT: 5
