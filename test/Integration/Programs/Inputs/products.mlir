// Products written the ways models and people write them, each taken over
// as a dispatch: attention's Q x K^T as a batch_matmul with user indexing
// maps, A transposed, a shared B (the batch folds into M) and a shared A
// (broadcast), linalg.contract, and linalg.generic contractions with a
// transposed output and permuted loops; on tensors and memrefs; products
// with a shared operand and an epilogue. The last function's body negates
// A: it is not a product and stays a generic.

#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bnk = affine_map<(b, m, n, k) -> (b, n, k)>
#bkm = affine_map<(b, m, n, k) -> (b, k, m)>
#bkn = affine_map<(b, m, n, k) -> (b, k, n)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>
#kn = affine_map<(b, m, n, k) -> (k, n)>
#mk = affine_map<(b, m, n, k) -> (m, k)>

func.func @scores_qkt(%q: tensor<?x?x?xf32>, %k: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %q, %c0 : tensor<?x?x?xf32>
  %m = tensor.dim %q, %c1 : tensor<?x?x?xf32>
  %n = tensor.dim %k, %c1 : tensor<?x?x?xf32>
  %e = tensor.empty(%b, %m, %n) : tensor<?x?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %r = linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn]
      ins(%q, %k : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      outs(%f : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

func.func @bmm_a_transposed(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = linalg.batch_matmul indexing_maps = [#bkm, #bkn, #bmn]
      ins(%a, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      outs(%c : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

func.func @bmm_shared_b(%a: tensor<?x?x?xf32>, %w: tensor<?x?xf32>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = linalg.batch_matmul indexing_maps = [#bmk, #kn, #bmn]
      ins(%a, %w : tensor<?x?x?xf32>, tensor<?x?xf32>)
      outs(%c : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

func.func @bmm_shared_a(%a: tensor<?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = linalg.batch_matmul indexing_maps = [#mk, #bkn, #bmn]
      ins(%a, %b : tensor<?x?xf32>, tensor<?x?x?xf32>)
      outs(%c : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

func.func @bmm_shared_b_memref(%a: memref<?x?x?xf32>, %w: memref<?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.batch_matmul indexing_maps = [#bmk, #kn, #bmn]
      ins(%a, %w : memref<?x?x?xf32>, memref<?x?xf32>)
      outs(%c : memref<?x?x?xf32>)
  return
}

func.func @contract_bt(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.contract
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
      outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// C^T = A x B, with the loops in the order (k, n, m).
func.func @generic_output_transposed(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %ct: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(k, n, m) -> (m, k)>,
                       affine_map<(k, n, m) -> (k, n)>,
                       affine_map<(k, n, m) -> (n, m)>],
      iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>) outs(%ct : tensor<?x?xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xw = arith.extf %x : f16 to f32
    %yw = arith.extf %y : f16 to f32
    %p = arith.mulf %yw, %xw : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// A batch matmul as a generic on memrefs, its loops permuted.
func.func @generic_batched_memref(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.generic {
      indexing_maps = [affine_map<(n, k, bb, m) -> (bb, m, k)>,
                       affine_map<(n, k, bb, m) -> (bb, k, n)>,
                       affine_map<(n, k, bb, m) -> (bb, m, n)>],
      iterator_types = ["parallel", "reduction", "parallel", "parallel"]}
      ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// A shared weight with an epilogue: relu(A[b] x W + bias + R[b]). The batch
// folds into M, and so do the consumers and the residual.
func.func @shared_b_bias_residual_relu(%a: tensor<?x?x?xf32>, %w: tensor<?x?xf32>,
                                       %bias: tensor<?xf32>, %res: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %nb = tensor.dim %a, %c0 : tensor<?x?x?xf32>
  %m = tensor.dim %a, %c1 : tensor<?x?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%nb, %m, %n) : tensor<?x?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %p = linalg.batch_matmul indexing_maps = [#bmk, #kn, #bmn]
      ins(%a, %w : tensor<?x?x?xf32>, tensor<?x?xf32>)
      outs(%f : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>,
                                        affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %bias, %res : tensor<?x?x?xf32>, tensor<?xf32>, tensor<?x?x?xf32>) outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%v: f32, %bv: f32, %rv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %t = arith.addf %s, %rv : f32
    %y = arith.maximumf %t, %zero : f32
    linalg.yield %y : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// A shared query scaled per row: the per-row vector has M elements, not
// batch x M, so the consumer stays (the product still folds).
func.func @shared_b_row_scale(%a: tensor<?x?x?xf32>, %w: tensor<?x?xf32>,
                              %rows: tensor<?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %nb = tensor.dim %a, %c0 : tensor<?x?x?xf32>
  %m = tensor.dim %a, %c1 : tensor<?x?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%nb, %m, %n) : tensor<?x?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %p = linalg.batch_matmul indexing_maps = [#bmk, #kn, #bmn]
      ins(%a, %w : tensor<?x?x?xf32>, tensor<?x?xf32>)
      outs(%f : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (i)>,
                                        affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %rows : tensor<?x?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%v: f32, %rv: f32, %o: f32):
    %y = arith.mulf %v, %rv : f32
    linalg.yield %y : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// A shared A (broadcast to the batch) with a per-row scale: a batch matmul
// and its epilogue.
func.func @shared_a_row_scale(%a: tensor<?x?xf32>, %b: tensor<?x?x?xf32>,
                              %rows: tensor<?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %nb = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %e = tensor.empty(%nb, %m, %n) : tensor<?x?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %p = linalg.batch_matmul indexing_maps = [#mk, #bkn, #bmn]
      ins(%a, %b : tensor<?x?xf32>, tensor<?x?x?xf32>)
      outs(%f : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (i)>,
                                        affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %rows : tensor<?x?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%v: f32, %rv: f32, %o: f32):
    %y = arith.mulf %v, %rv : f32
    linalg.yield %y : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// (-A) x B: the negation makes it no product of A and B.
func.func @not_a_product(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (k, n)>,
                       affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %nx = arith.negf %x : f32
    %p = arith.mulf %nx, %y : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
