// A matmul of A padded with a zero row above and two below, and a slice of
// the result copied out: the pad's and the slice's copies are between
// strided views (host loops; on GPUs, kernels: gpu.memcpy copies only
// contiguous buffers).

func.func @padded(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1, 0] high[2, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<?x?xf32> to tensor<?x?xf32>
  %m = tensor.dim %p, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%p, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %rows = arith.subi %m, %c3 : index
  %inner = tensor.extract_slice %r[1, 0] [%rows, %n] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %copy = tensor.empty(%rows, %n) : tensor<?x?xf32>
  %out = linalg.copy ins(%inner : tensor<?x?xf32>) outs(%copy : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r, %out : tensor<?x?xf32>, tensor<?x?xf32>
}
