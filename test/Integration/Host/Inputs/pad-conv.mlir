// A tensor.pad before a convolution: the pad copies the image into the
// interior of a larger buffer (a memref.copy into a strided view).
func.func @padconv(%x: tensor<?x?x?x8xf32>, %f: tensor<3x3x8x16xf32>) -> tensor<?x?x?x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x?x?x8xf32> to tensor<?x?x?x8xf32>
  %n = tensor.dim %x, %c0 : tensor<?x?x?x8xf32>
  %h = tensor.dim %x, %c1 : tensor<?x?x?x8xf32>
  %w = tensor.dim %x, %c2 : tensor<?x?x?x8xf32>
  %e = tensor.empty(%n, %h, %w) : tensor<?x?x?x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x?x16xf32>) -> tensor<?x?x?x16xf32>
  %y = linalg.conv_2d_nhwc_hwcf ins(%p, %f : tensor<?x?x?x8xf32>, tensor<3x3x8x16xf32>) outs(%acc : tensor<?x?x?x16xf32>) -> tensor<?x?x?x16xf32>
  return %y : tensor<?x?x?x16xf32>
}
