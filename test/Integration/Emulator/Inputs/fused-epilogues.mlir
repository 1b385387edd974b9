// Contractions with elementwise consumers that the front end fuses as
// generated code (Inputs/fused-check.c calls them): written the way
// canonicalization and model exporters leave them, with constants and
// scalars defined above the consumers.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// min(max(X W + bias, 0), 1.5): a clamp, which must stay one.
func.func @clamp(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %hi = arith.constant 1.5 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    %c = arith.minimumf %r, %hi : f32
    linalg.yield %c : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// (X W) * alpha + R - rows[m]: a scale by an argument, a residual add
// (linalg.add) and a per-row shift, three consumers in a chain.
func.func @residual(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %res: tensor<?x?xf32>, %rows: tensor<?xf32>, %alpha: f32) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %alpha : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %sum = linalg.add ins(%scaled, %res : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum, %rows : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %r: f32, %o: f32):
    %s = arith.subf %v, %r : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// The tanh approximation of GELU on an f16 matmul accumulated in f32,
// rounded to an f16 output.
func.func @tanh_gelu_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>, %bias: tensor<?xf32>) -> tensor<?x?xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %k0 = arith.constant 0.7978845608 : f32
  %k1 = arith.constant 0.044715 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %n = tensor.dim %w, %c1 : tensor<?x?xf16>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %out = tensor.empty(%m, %n) : tensor<?x?xf16>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%out : tensor<?x?xf16>) {
  ^bb0(%v0: f32, %b: f32, %o: f16):
    %v = arith.addf %v0, %b : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %kv3 = arith.mulf %k1, %v3 : f32
    %in = arith.addf %v, %kv3 : f32
    %arg = arith.mulf %k0, %in : f32
    %t = math.tanh %arg : f32
    %p = arith.addf %one, %t : f32
    %hv = arith.mulf %half, %v : f32
    %g = arith.mulf %hv, %p : f32
    %h = arith.truncf %g : f32 to f16
    linalg.yield %h : f16
  } -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}

// ReLU as compare and select of a batch matmul plus a residual.
func.func @select_relu_batch(%x: tensor<?x?x?xf32>, %w: tensor<?x?x?xf32>, %res: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %n = tensor.dim %w, %c2 : tensor<?x?x?xf32>
  %e = tensor.empty(%b, %m, %n) : tensor<?x?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %mm = linalg.batch_matmul ins(%x, %w : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%acc : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %y = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %res : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%v: f32, %r: f32, %o: f32):
    %s = arith.addf %v, %r : f32
    %gt = arith.cmpf ogt, %s, %zero : f32
    %y0 = arith.select %gt, %s, %zero : f32
    linalg.yield %y0 : f32
  } -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// X W + 0.25: a fill of another value than zero, folded into the dispatch
// (C starts as 0.25; with K = 0 the result is all 0.25).
func.func @offset_fill(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %quarter = arith.constant 0.25 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%quarter : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %mm : tensor<?x?xf32>
}
