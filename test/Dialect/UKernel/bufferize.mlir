// RUN: quilt-opt %s -split-input-file -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s

// ukernel.dispatch on tensors bufferizes in place on its init's buffer.

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?x?xf32>, %[[C:.*]]: memref<?x?xf32>) -> memref<?x?xf32>
// CHECK: ukernel.dispatch matmul ins(%[[A]], %[[B]] : memref<?x?xf32>, memref<?x?xf32>) outs(%[[C]] : memref<?x?xf32>) candidates
// CHECK-NOT: ->
// CHECK: return %[[C]]
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>)
         candidates [#simt] -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

#simt = #ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>

// A zero-filled accumulator from tensor.empty becomes an allocation; the bias
// and the attributes carry over.
// CHECK-LABEL: func.func @fill_bias_relu(
// CHECK: %[[ALLOC:.*]] = memref.alloc(%{{.*}}, %{{.*}}) {{.*}}: memref<?x?xf32>
// CHECK: linalg.fill {{.*}} outs(%[[ALLOC]] : memref<?x?xf32>)
// CHECK: ukernel.dispatch matmul transpose_rhs ins({{.*}}) outs(%[[ALLOC]] : memref<?x?xf32>) bias(%{{.*}} : memref<?xf32>) epilogue [bias_add, relu] candidates {{.*}} policy patch
// CHECK: return %[[ALLOC]]
func.func @fill_bias_relu(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %bias: tensor<?xf32>, %m: index, %n: index) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = ukernel.dispatch matmul transpose_rhs ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<?x?xf32>)
         bias(%bias : tensor<?xf32>) epilogue [bias_add, relu] candidates [#simt] policy patch -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
