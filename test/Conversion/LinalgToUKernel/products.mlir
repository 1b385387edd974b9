// RUN: quilt-opt %S/../../Integration/Programs/Inputs/products.mlir --ukernel-attach-target=target=host --convert-linalg-to-ukernel | FileCheck %s

// Every product of the input, whatever op and maps it is written with, is
// a dispatch in matmul or batch_matmul terms (the input's functions are
// run against NumPy by python-bindings/tests/test_products.py).

// Q x K^T: B transposed through the batch_matmul's maps.
// CHECK-LABEL: func.func @scores_qkt
// CHECK: ukernel.dispatch batch_matmul transpose_rhs ins(%{{.*}}, %{{.*}} : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%{{.*}} : tensor<?x?x?xf32>) fill(0.000000e+00 : f32)
// CHECK-NOT: linalg.batch_matmul

// CHECK-LABEL: func.func @bmm_a_transposed
// CHECK: ukernel.dispatch batch_matmul transpose_lhs ins

// B shared by every batch element: the batch folds into M.
// CHECK-LABEL: func.func @bmm_shared_b
// CHECK: %[[A:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x?x?xf32> into tensor<?x?xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x?x?xf32> into tensor<?x?xf32>
// CHECK: %[[R:.*]] = ukernel.dispatch matmul ins(%[[A]], %{{.*}} : tensor<?x?xf32>, tensor<?x?xf32>) outs(%[[C]] : tensor<?x?xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]]
// CHECK: return %[[E]]

// A shared: broadcast to the batch, then a batch matmul.
// CHECK-LABEL: func.func @bmm_shared_a
// CHECK: %[[BA:.*]] = linalg.broadcast ins(%{{.*}} : tensor<?x?xf32>) outs(%{{.*}} : tensor<?x?x?xf32>) dimensions = [0]
// CHECK: ukernel.dispatch batch_matmul ins(%[[BA]], %{{.*}} : tensor<?x?x?xf32>, tensor<?x?x?xf32>)

// On buffers, the fold is a view of A and C.
// CHECK-LABEL: func.func @bmm_shared_b_memref
// CHECK: %[[A:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<?x?x?xf32> into memref<?x?xf32>
// CHECK: %[[C:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<?x?x?xf32> into memref<?x?xf32>
// CHECK: ukernel.dispatch matmul ins(%[[A]], %{{.*}} : memref<?x?xf32>, memref<?x?xf32>) outs(%[[C]] : memref<?x?xf32>)

// CHECK-LABEL: func.func @contract_bt
// CHECK: ukernel.dispatch matmul transpose_rhs ins
// CHECK-NOT: linalg.contract

// C^T = A x B is C = B^T x A^T: the operands swap, both read transposed.
// CHECK-LABEL: func.func @generic_output_transposed(
// CHECK-SAME: %[[A:.*]]: tensor<?x?xf16>, %[[B:.*]]: tensor<?x?xf16>, %[[CT:.*]]: tensor<?x?xf32>
// CHECK: ukernel.dispatch matmul transpose_lhs transpose_rhs ins(%[[B]], %[[A]] : tensor<?x?xf16>, tensor<?x?xf16>) outs(%[[CT]] : tensor<?x?xf32>)
// CHECK-NOT: linalg.generic

// CHECK-LABEL: func.func @generic_batched_memref
// CHECK: ukernel.dispatch batch_matmul ins(%{{.*}}, %{{.*}} : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%{{.*}} : memref<?x?x?xf32>)
// CHECK-NOT: linalg.generic

// A shared weight with an epilogue: the consumer folds with the batch, its
// residual collapsed like C; the result is expanded back.
// CHECK-LABEL: func.func @shared_b_bias_residual_relu
// CHECK-SAME: %[[BIAS:[^:]*]]: tensor<?xf32>, %[[RES:[^:]*]]: tensor<?x?x?xf32>)
// CHECK-DAG: %[[R2:.*]] = tensor.collapse_shape %[[RES]] {{\[\[}}0, 1], [2]]
// CHECK: %[[P:.*]] = ukernel.dispatch matmul ins({{.*}} : tensor<?x?xf32>, tensor<?x?xf32>) outs(%{{.*}} : tensor<?x?xf32>) fill(0.000000e+00 : f32) fused(%[[BIAS]], %[[R2]] : tensor<?xf32>, tensor<?x?xf32>) [per_column, per_element] {
// CHECK: arith.maximumf
// CHECK: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[\[}}0, 1], [2]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[E]]

// A per-row operand does not fold with the batch: the consumer stays.
// CHECK-LABEL: func.func @shared_b_row_scale
// CHECK: ukernel.dispatch matmul {{.*}} fill(0.000000e+00 : f32) candidates
// CHECK: tensor.expand_shape
// CHECK: linalg.generic

// A broadcast shared A: a batch matmul, per-row operand and all.
// CHECK-LABEL: func.func @shared_a_row_scale
// CHECK: linalg.broadcast
// CHECK: ukernel.dispatch batch_matmul {{.*}} fill(0.000000e+00 : f32) fused(%{{.*}} : tensor<?xf32>) [per_row] {
// CHECK-NOT: linalg.generic
// CHECK: return

// CHECK-LABEL: func.func @not_a_product
// CHECK-NOT: ukernel.dispatch
// CHECK: linalg.generic
// CHECK: arith.negf
