// A transformer block's output: (X x W + bias) normalized over each row,
// with reductions written as generics, as exporters write layer norms.

#rows = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @dense_layernorm(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>,
                           %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                      outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %h = linalg.generic {indexing_maps = [#rows, #col, #rows],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %re = tensor.empty(%m) : tensor<?xf32>
  %r0 = linalg.fill ins(%zero : f32) outs(%re : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%h : tensor<?x?xf32>) outs(%r0 : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %sq = linalg.generic {indexing_maps = [#rows, #row],
                        iterator_types = ["parallel", "reduction"]}
      ins(%h : tensor<?x?xf32>) outs(%r0 : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %p = arith.mulf %v, %v : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %nidx = arith.index_cast %n : index to i64
  %nf = arith.sitofp %nidx : i64 to f32
  %out = linalg.generic {indexing_maps = [#rows, #row, #row, #rows],
                         iterator_types = ["parallel", "parallel"]}
      ins(%h, %sum, %sq : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>)
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %s: f32, %q: f32, %o: f32):
    %mean = arith.divf %s, %nf : f32
    %msq = arith.divf %q, %nf : f32
    %mean2 = arith.mulf %mean, %mean : f32
    %var = arith.subf %msq, %mean2 : f32
    %ve = arith.addf %var, %eps : f32
    %rstd = math.rsqrt %ve : f32
    %d = arith.subf %v, %mean : f32
    %y = arith.mulf %d, %rstd : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %out : tensor<?x?xf32>
}
