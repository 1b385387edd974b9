// RUN: quilt-opt %s -split-input-file --quilt-adopt-deallocations | FileCheck %s
// RUN: quilt-opt %s -split-input-file --quilt-adopt-deallocations --buffer-deallocation-pipeline --canonicalize | FileCheck %s --check-prefix=FREED

// A buffer the function allocates and frees itself: the dealloc goes, and
// the deallocation pipeline frees the buffer after its last use, once.
// CHECK-LABEL: func.func @scratch
// CHECK: memref.alloc
// CHECK: linalg.matmul
// CHECK-NOT: memref.dealloc
// CHECK: return
// FREED-LABEL: func.func @scratch
// FREED: %[[T:.*]] = memref.alloc
// FREED: linalg.matmul ins(%[[T]],
// FREED-NEXT: memref.dealloc %[[T]]
// FREED-NOT: memref.dealloc
// FREED: return
func.func @scratch(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c0 : memref<?x?xf32>
  %k = memref.dim %a, %c1 : memref<?x?xf32>
  %t = memref.alloc(%m, %k) : memref<?x?xf32>
  memref.copy %a, %t : memref<?x?xf32> to memref<?x?xf32>
  linalg.matmul ins(%t, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  memref.dealloc %t : memref<?x?xf32>
  return
}

// -----

// Through a cast (the same buffer), and a buffer freed in a loop body.
// CHECK-LABEL: func.func @cast_and_loop
// CHECK-NOT: memref.dealloc
// CHECK: return
// FREED-LABEL: func.func @cast_and_loop
// FREED: scf.for
// FREED: %[[S:.*]] = memref.alloc
// FREED: memref.dealloc %[[S]]
// FREED: memref.dealloc
// FREED: return
func.func @cast_and_loop(%n: index, %x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<4xf32>
  %d = memref.cast %t : memref<4xf32> to memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %s = memref.alloc() : memref<4xf32>
    memref.copy %x, %s : memref<4xf32> to memref<4xf32>
    memref.copy %s, %t : memref<4xf32> to memref<4xf32>
    memref.dealloc %s : memref<4xf32>
  }
  memref.copy %t, %x : memref<4xf32> to memref<4xf32>
  memref.dealloc %d : memref<?xf32>
  return
}
