// Double-precision products, taken over as dispatches with f64 candidates
// (CPU vector FMA on f64 lanes, SIMT FMA on GPUs) that accumulate in f64: a
// matmul with a fused bias and tanh, attention's Q x K^T with a scale, an
// in-place memref product that accumulates into C, and an NHWC convolution
// with a per-channel bias.

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bnk = affine_map<(b, m, n, k) -> (b, n, k)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>
#nhwc = affine_map<(n, h, w, f) -> (n, h, w, f)>
#chan = affine_map<(n, h, w, f) -> (f)>

func.func @dense_tanh(%x: tensor<?x?xf64>, %w: tensor<?x?xf64>,
                      %bias: tensor<?xf64>) -> tensor<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %m = tensor.dim %x, %c0 : tensor<?x?xf64>
  %n = tensor.dim %w, %c1 : tensor<?x?xf64>
  %e = tensor.empty(%m, %n) : tensor<?x?xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<?x?xf64>) -> tensor<?x?xf64>
  %p = linalg.matmul ins(%x, %w : tensor<?x?xf64>, tensor<?x?xf64>)
                     outs(%f : tensor<?x?xf64>) -> tensor<?x?xf64>
  %r = linalg.generic {indexing_maps = [#id, #col, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<?x?xf64>, tensor<?xf64>) outs(%e : tensor<?x?xf64>) {
  ^bb0(%v: f64, %b: f64, %o: f64):
    %s = arith.addf %v, %b : f64
    %t = math.tanh %s : f64
    linalg.yield %t : f64
  } -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}

func.func @scaled_scores(%q: tensor<?x?x?xf64>, %k: tensor<?x?x?xf64>,
                         %scale: f64) -> tensor<?x?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %b = tensor.dim %q, %c0 : tensor<?x?x?xf64>
  %m = tensor.dim %q, %c1 : tensor<?x?x?xf64>
  %n = tensor.dim %k, %c1 : tensor<?x?x?xf64>
  %e = tensor.empty(%b, %m, %n) : tensor<?x?x?xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<?x?x?xf64>) -> tensor<?x?x?xf64>
  %s = linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn]
      ins(%q, %k : tensor<?x?x?xf64>, tensor<?x?x?xf64>)
      outs(%f : tensor<?x?x?xf64>) -> tensor<?x?x?xf64>
  %r = linalg.generic {indexing_maps = [#id3, #id3],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<?x?x?xf64>) outs(%e : tensor<?x?x?xf64>) {
  ^bb0(%v: f64, %o: f64):
    %t = arith.mulf %v, %scale : f64
    linalg.yield %t : f64
  } -> tensor<?x?x?xf64>
  return %r : tensor<?x?x?xf64>
}

func.func @accumulate(%a: memref<?x?xf64>, %b: memref<?x?xf64>,
                      %c: memref<?x?xf64>) {
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>)
                outs(%c : memref<?x?xf64>)
  return
}

func.func @conv_bias(%img: tensor<?x?x?x?xf64>, %filter: tensor<3x3x?x?xf64>,
                     %bias: tensor<?xf64>) -> tensor<?x?x?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %img, %c0 : tensor<?x?x?x?xf64>
  %h = tensor.dim %img, %c1 : tensor<?x?x?x?xf64>
  %w = tensor.dim %img, %c2 : tensor<?x?x?x?xf64>
  %f = tensor.dim %filter, %c3 : tensor<3x3x?x?xf64>
  %oh = arith.subi %h, %c2 : index
  %ow = arith.subi %w, %c2 : index
  %e = tensor.empty(%n, %oh, %ow, %f) : tensor<?x?x?x?xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<?x?x?x?xf64>) -> tensor<?x?x?x?xf64>
  %o = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%img, %filter : tensor<?x?x?x?xf64>, tensor<3x3x?x?xf64>)
      outs(%z : tensor<?x?x?x?xf64>) -> tensor<?x?x?x?xf64>
  %r = linalg.generic {indexing_maps = [#nhwc, #chan, #nhwc],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o, %bias : tensor<?x?x?x?xf64>, tensor<?xf64>) outs(%e : tensor<?x?x?x?xf64>) {
  ^bb0(%v: f64, %b: f64, %out: f64):
    %s = arith.addf %v, %b : f64
    linalg.yield %s : f64
  } -> tensor<?x?x?x?xf64>
  return %r : tensor<?x?x?x?xf64>
}
