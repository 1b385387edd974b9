// RUN: quilt-opt %s -split-input-file --quilt-expand-shapes-to-casts | FileCheck %s
// RUN: quilt-opt %s -split-input-file --quilt-expand-shapes-to-casts --expand-strided-metadata | FileCheck %s --check-prefix=EXPANDED

// Two dynamic sizes in one group (what a dynamic tensor.expand_shape
// bufferizes to), which MLIR 22's expand-strided-metadata crashes on: a
// cast of the source's base to the output shape, the group's outer stride
// being the inner one times the inner size.
// CHECK-LABEL: func.func @rows_into_batch
// CHECK-SAME: (%[[SRC:.*]]: memref<?x?xf32>, %[[B:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[SRC]]
// CHECK: %[[OUTER:.*]] = arith.muli %[[STRIDES]]#0, %[[M]] : index
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[B]], %[[M]], %[[N]]], strides: [%[[OUTER]], %[[STRIDES]]#0, 1]
// CHECK-NOT: memref.expand_shape
// EXPANDED-LABEL: func.func @rows_into_batch
// EXPANDED: memref.reinterpret_cast
func.func @rows_into_batch(%m: memref<?x?xf32>, %b: index, %rows: index, %n: index) -> memref<?x?x?xf32> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%b, %rows, %n] : memref<?x?xf32> into memref<?x?x?xf32>
  return %e : memref<?x?x?xf32>
}

// -----

// A strided source keeps its offset and strides.
// CHECK-LABEL: func.func @strided
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [%{{.*}}, %{{.*}}, %{{.*}}], strides: [%{{.*}}, %[[STRIDES]]#0, 1]
func.func @strided(%m: memref<?x?xf32, strided<[?, 1], offset: ?>>, %b: index, %rows: index, %n: index) -> memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%b, %rows, %n] : memref<?x?xf32, strided<[?, 1], offset: ?>> into memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
  return %e : memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
}

// -----

// One dynamic size per group is left to expand-strided-metadata.
// CHECK-LABEL: func.func @one_dynamic_size
// CHECK: memref.expand_shape
func.func @one_dynamic_size(%m: memref<?x8xf32>, %b: index) -> memref<?x4x8xf32> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%b, 4, 8] : memref<?x8xf32> into memref<?x4x8xf32>
  return %e : memref<?x4x8xf32>
}
