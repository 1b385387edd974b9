// RUN: quilt-opt %s -split-input-file --ukernel-attach-target=target=h100 --convert-linalg-to-ukernel | FileCheck %s

// Epilogues and fills on buffers. A consumer fuses when the dispatch can
// take its place: nothing between the writer and it touches memory, it
// updates the buffer in place or the buffer it reads is a temporary nothing
// else uses, and the buffer it writes is not one the product or the
// epilogue reads. The execution tests run the fused programs
// (test/Integration/Programs/Inputs/memref-epilogues.mlir).

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>

// A temporary the consumer reads and writes past is never written by the
// dispatch: it goes, with its fill and deallocation.
// CHECK-LABEL: func.func @through_temporary
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[W:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<?x?xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.fill
// CHECK: ukernel.dispatch matmul ins(%[[X]], %[[W]] : memref<?x?xf32>, memref<?x?xf32>) outs(%[[OUT]] : memref<?x?xf32>) fill(0.000000e+00 : f32) fused(%[[B]] : memref<?xf32>) [per_column] {
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: ukernel.yield
// CHECK-NOT: linalg.
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @through_temporary(%x: memref<?x?xf32>, %w: memref<?x?xf32>,
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

// -----

#id = affine_map<(i, j) -> (i, j)>

// In place: the product read through the consumer's init, a rank-0 scale
// read once, and a named op on the same buffer.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[W:.*]]: memref<?x?xf32>, %[[R:.*]]: memref<?x?xf32>, %[[S:.*]]: memref<f32>, %[[OUT:.*]]: memref<?x?xf32>)
// CHECK: %[[SCALE:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK: ukernel.dispatch matmul ins(%[[X]], %[[W]] : {{.*}}) outs(%[[OUT]] : memref<?x?xf32>) fill(0.000000e+00 : f32) fused(%[[SCALE]], %[[R]] : f32, memref<?x?xf32>) [scalar, per_element] {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[SV:.*]]: f32, %[[RV:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[ACC]], %[[SV]] : f32
// CHECK-NEXT: %[[Q:.*]] = arith.addf %[[P]], %[[RV]] : f32
// CHECK-NEXT: ukernel.yield %[[Q]] : f32
// CHECK-NOT: linalg.
func.func @in_place(%x: memref<?x?xf32>, %w: memref<?x?xf32>,
                    %r: memref<?x?xf32>, %scale: memref<f32>,
                    %out: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<?x?xf32>)
  linalg.matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>)
                outs(%out : memref<?x?xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> ()>, #id],
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

// -----

// Without an epilogue the fill folds all the same; a fill of another
// buffer, or one that something reads before the product, does not.
// CHECK-LABEL: func.func @fill_folds
// CHECK-NOT: linalg.fill
// CHECK: ukernel.dispatch matmul {{.*}} fill(1.000000e+00 : f32) candidates
func.func @fill_folds(%x: memref<?x?xf32>, %w: memref<?x?xf32>,
                      %out: memref<?x?xf32>) {
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%one : f32) outs(%out : memref<?x?xf32>)
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  linalg.matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>)
                outs(%out : memref<?x?xf32>)
  return
}

// CHECK-LABEL: func.func @fill_read_first
// CHECK: linalg.fill
// CHECK: memref.copy
// CHECK: ukernel.dispatch matmul
// CHECK-NOT: fill(
func.func @fill_read_first(%x: memref<?x?xf32>, %w: memref<?x?xf32>,
                           %out: memref<?x?xf32>, %copy: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<?x?xf32>)
  memref.copy %out, %copy : memref<?x?xf32> to memref<?x?xf32>
  linalg.matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>)
                outs(%out : memref<?x?xf32>)
  return
}

// CHECK-LABEL: func.func @fill_of_another_buffer
// CHECK: linalg.fill
// CHECK: ukernel.dispatch matmul
// CHECK-NOT: fill(
func.func @fill_of_another_buffer(%x: memref<?x?xf32>, %w: memref<?x?xf32>,
                                  %out: memref<?x?xf32>,
                                  %other: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%other : memref<?x?xf32>)
  linalg.matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>)
                outs(%out : memref<?x?xf32>)
  return
}

// -----

// Consumers that stay: the product's buffer is an argument the caller sees
// (writing past it would leave it unwritten), a temporary that something
// else reads, a write between the product and the consumer, and outputs
// that the product or the epilogue read.
#id = affine_map<(i, j) -> (i, j)>

// CHECK-LABEL: func.func @product_buffer_is_an_argument
// CHECK: ukernel.dispatch matmul {{.*}} fill(0.000000e+00 : f32) candidates
// CHECK: linalg.generic
func.func @product_buffer_is_an_argument(%x: memref<?x?xf32>,
                                         %w: memref<?x?xf32>,
                                         %c: memref<?x?xf32>,
                                         %out: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?xf32>)
  linalg.matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>)
                outs(%c : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @temporary_read_again
// CHECK: memref.alloc
// CHECK: ukernel.dispatch matmul {{.*}} fill(0.000000e+00 : f32) candidates
// CHECK: linalg.generic
// CHECK: memref.copy
func.func @temporary_read_again(%x: memref<?x?xf32>, %w: memref<?x?xf32>,
                                %out: memref<?x?xf32>,
                                %copy: memref<?x?xf32>, %m: index,
                                %n: index) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<?x?xf32>)
  linalg.matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>)
                outs(%t : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  memref.copy %t, %copy : memref<?x?xf32> to memref<?x?xf32>
  memref.dealloc %t : memref<?x?xf32>
  return
}

// CHECK-LABEL: func.func @write_in_between
// CHECK: ukernel.dispatch matmul {{.*}} fill(0.000000e+00 : f32) candidates
// CHECK: memref.store
// CHECK: linalg.generic
func.func @write_in_between(%x: memref<?x?xf32>, %w: memref<?x?xf32>,
                            %out: memref<?x?xf32>, %i: index) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<?x?xf32>)
  linalg.matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>)
                outs(%out : memref<?x?xf32>)
  memref.store %zero, %x[%i, %i] : memref<?x?xf32>
  linalg.generic {indexing_maps = [#id],
                  iterator_types = ["parallel", "parallel"]}
      outs(%out : memref<?x?xf32>) {
  ^bb0(%o: f32):
    %r = arith.maximumf %o, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @writes_the_product_input
// CHECK: ukernel.dispatch matmul {{.*}} fill(0.000000e+00 : f32) candidates
// CHECK: linalg.generic
func.func @writes_the_product_input(%x: memref<?x?xf32>, %w: memref<?x?xf32>,
                                    %m: index, %n: index) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<?x?xf32>)
  linalg.matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>)
                outs(%t : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<?x?xf32>) outs(%x : memref<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %t : memref<?x?xf32>
  return
}

// A residual read from a view of the buffer written: the kernel would
// overwrite it with partial sums before the epilogue reads it.
// CHECK-LABEL: func.func @residual_is_a_view_of_the_output
// CHECK: ukernel.dispatch matmul {{.*}} fill(0.000000e+00 : f32) candidates
// CHECK: linalg.generic
func.func @residual_is_a_view_of_the_output(%x: memref<?x?xf32>,
                                            %w: memref<?x?xf32>,
                                            %out: memref<?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  %view = memref.cast %out : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  linalg.fill ins(%zero : f32) outs(%out : memref<?x?xf32>)
  linalg.matmul ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>)
                outs(%out : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%view : memref<?x?xf32, strided<[?, 1], offset: ?>>)
      outs(%out : memref<?x?xf32>) {
  ^bb0(%r: f32, %o: f32):
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A shared B on buffers: the batch folds into M, and so does the chain when
// the buffer it writes folds as C does (identity layout); a strided one,
// whose rows may not be contiguous, keeps its consumer.
#id = affine_map<(b, i, j) -> (b, i, j)>
#col = affine_map<(b, i, j) -> (j)>
#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#kn = affine_map<(b, m, n, k) -> (k, n)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>

// CHECK-LABEL: func.func @shared_b_folds
// CHECK-SAME: %[[OUT:arg3]]: memref<?x?x?xf32>,
// CHECK: %[[C:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1], [2]]
// CHECK: ukernel.dispatch matmul {{.*}} outs(%[[C]] : memref<?x?xf32>) fill(0.000000e+00 : f32) fused(%{{.*}} : memref<?xf32>) [per_column] {
// CHECK-NOT: linalg.generic
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @shared_b_folds(%a: memref<?x?x?xf32>, %w: memref<?x?xf32>, %bias: memref<?xf32>,
                          %out: memref<?x?x?xf32>, %nb: index, %m: index, %n: index) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc(%nb, %m, %n) : memref<?x?x?xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<?x?x?xf32>)
  linalg.batch_matmul indexing_maps = [#bmk, #kn, #bmn]
      ins(%a, %w : memref<?x?x?xf32>, memref<?x?xf32>) outs(%t : memref<?x?x?xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t, %bias : memref<?x?x?xf32>, memref<?xf32>) outs(%out : memref<?x?x?xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  }
  memref.dealloc %t : memref<?x?x?xf32>
  return
}

// CHECK-LABEL: func.func @shared_b_strided_output
// CHECK: memref.alloc
// CHECK: ukernel.dispatch matmul {{.*}} fill(0.000000e+00 : f32) candidates
// CHECK: linalg.generic
func.func @shared_b_strided_output(%a: memref<?x?x?xf32>, %w: memref<?x?xf32>, %bias: memref<?xf32>,
                                   %out: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>,
                                   %nb: index, %m: index, %n: index) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc(%nb, %m, %n) : memref<?x?x?xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<?x?x?xf32>)
  linalg.batch_matmul indexing_maps = [#bmk, #kn, #bmn]
      ins(%a, %w : memref<?x?x?xf32>, memref<?x?xf32>) outs(%t : memref<?x?x?xf32>)
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t, %bias : memref<?x?x?xf32>, memref<?xf32>) outs(%out : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  }
  memref.dealloc %t : memref<?x?x?xf32>
  return
}
