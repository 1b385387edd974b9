// RUN: quilt-opt %s -split-input-file --quilt-buffer-safe-canonicalize | FileCheck %s
// Upstream's canonicalize folds the same loads into tensor.extract of the
// old tensor (the miscompile this pass exists for):
// RUN: quilt-opt %s -split-input-file --canonicalize | FileCheck %s --check-prefix=UPSTREAM

// A cache row stored through to_buffer and read back through it: the load
// stays a load of the buffer, after the store.
// CHECK-LABEL: func.func @store_then_load
// CHECK-SAME: (%[[CACHE:.*]]: tensor<4x8xf32>
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[CACHE]]
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: memref.load %[[BUF]]
// CHECK-NOT: tensor.extract
// UPSTREAM-LABEL: func.func @store_then_load
// UPSTREAM: tensor.extract
func.func @store_then_load(%cache: tensor<4x8xf32>, %v: f32, %i: index) -> f32 {
  %c3 = arith.constant 3 : index
  %buf = bufferization.to_buffer %cache : tensor<4x8xf32> to memref<4x8xf32>
  memref.store %v, %buf[%c3, %i] : memref<4x8xf32>
  %r = memref.load %buf[%c3, %i] : memref<4x8xf32>
  return %r : f32
}

// -----

// Everything else canonicalizes as usual: constants fold, dead ops go,
// dim of a static tensor folds.
// CHECK-LABEL: func.func @other_patterns_apply
// CHECK-DAG: %[[FIVE:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NOT: arith.addi
// CHECK-NOT: tensor.dim
// CHECK: return %[[FIVE]], %[[FOUR]]
func.func @other_patterns_apply(%t: tensor<4x?xf32>) -> (index, index) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c0 = arith.constant 0 : index
  %s = arith.addi %c2, %c3 : index
  %unused = arith.muli %s, %s : index
  %d = tensor.dim %t, %c0 : tensor<4x?xf32>
  return %s, %d : index, index
}
