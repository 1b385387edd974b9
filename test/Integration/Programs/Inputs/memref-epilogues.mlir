// Epilogues on buffers, written as memref programs are: a fill, the product
// into a buffer, and elementwise consumers that update it in place or write
// another buffer. Each function's consumers fuse into its dispatch
// (test/Conversion/LinalgToUKernel/memref-epilogues.mlir checks the IR).

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
#none = affine_map<(i, j) -> ()>

// relu(X x W + bias) through a temporary the function allocates and frees:
// the temporary is never written, and goes.
func.func @dense_relu(%x: memref<?x?xf32>, %w: memref<?x?xf32>,
                      %bias: memref<?xf32>, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %n = memref.dim %w, %c1 : memref<?x?xf32>
  %t = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<?x?xf32>)
  linalg.matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>)
                outs(%t : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : memref<?x?xf32>, memref<?xf32>)
      outs(%out : memref<?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %t : memref<?x?xf32>
  return
}

// OUT = (X x W) * scale + R, in place in OUT: the scale is a rank-0 buffer
// read through the generic, the product through the generic's init, and the
// residual is added by a named linalg.add.
func.func @scaled_residual(%x: memref<?x?xf32>, %w: memref<?x?xf32>,
                           %r: memref<?x?xf32>, %scale: memref<f32>,
                           %out: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<?x?xf32>)
  linalg.matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>)
                outs(%out : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#none, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%scale : memref<f32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%s: f32, %o: f32):
    %p = arith.mulf %o, %s : f32
    linalg.yield %p : f32
  }
  linalg.add ins(%out, %r : memref<?x?xf32>, memref<?x?xf32>)
             outs(%out : memref<?x?xf32>)
  return
}

// tanh(X x W + bias) of f16 inputs, accumulated in an f32 temporary and
// rounded into an f16 output.
func.func @tanh_f16(%x: memref<?x?xf16>, %w: memref<?x?xf16>,
                    %bias: memref<?xf32>, %out: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %x, %c0 : memref<?x?xf16>
  %n = memref.dim %w, %c1 : memref<?x?xf16>
  %t = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<?x?xf32>)
  linalg.matmul ins(%x, %w : memref<?x?xf16>, memref<?x?xf16>)
                outs(%t : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : memref<?x?xf32>, memref<?xf32>)
      outs(%out : memref<?x?xf16>) {
  ^bb0(%v: f32, %b: f32, %o: f16):
    %s = arith.addf %v, %b : f32
    %e = math.tanh %s : f32
    %h = arith.truncf %e : f32 to f16
    linalg.yield %h : f16
  }
  memref.dealloc %t : memref<?x?xf32>
  return
}

// A[b] x W + bias for a weight W shared by the batch, through a temporary:
// the batch folds into M, and the epilogue with it.
func.func @shared_weight_bias(%a: memref<?x?x?xf32>, %w: memref<?x?xf32>,
                              %bias: memref<?xf32>, %out: memref<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %nb = memref.dim %a, %c0 : memref<?x?x?xf32>
  %m = memref.dim %a, %c1 : memref<?x?x?xf32>
  %n = memref.dim %w, %c1 : memref<?x?xf32>
  %t = memref.alloc(%nb, %m, %n) : memref<?x?x?xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<?x?x?xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, i, j, k) -> (b, i, k)>,
                                       affine_map<(b, i, j, k) -> (k, j)>,
                                       affine_map<(b, i, j, k) -> (b, i, j)>]
      ins(%a, %w : memref<?x?x?xf32>, memref<?x?xf32>)
      outs(%t : memref<?x?x?xf32>)
  linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>,
                                   affine_map<(b, i, j) -> (j)>,
                                   affine_map<(b, i, j) -> (b, i, j)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t, %bias : memref<?x?x?xf32>, memref<?xf32>)
      outs(%out : memref<?x?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  }
  memref.dealloc %t : memref<?x?x?xf32>
  return
}
