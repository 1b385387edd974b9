// RUN: quilt-opt %s -split-input-file --quilt-adopt-deallocations | FileCheck %s
// RUN: quilt-opt %s -split-input-file --quilt-adopt-deallocations --quilt-buffer-deallocation --buffer-deallocation-simplification --bufferization-lower-deallocations --canonicalize | FileCheck %s --check-prefix=FREED

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

// -----

// A program bufferized before, with its deallocations lowered (as Buddy
// Compiler's decode programs arrive): the base buffer of a view is freed
// under a condition. The function manages its own memory: every dealloc
// stays, including that of its own buffer, and the deallocation pipeline
// adds none (it would free %t a second time).
// CHECK-LABEL: func.func @lowered_deallocations
// CHECK-SAME:    attributes {quilt.manages_its_memory}
// CHECK: memref.dealloc %{{.*}} : memref<f32>
// CHECK: memref.dealloc %{{.*}} : memref<4xf32>
// FREED-LABEL: func.func @lowered_deallocations
// FREED-NOT:     quilt.manages_its_memory
// FREED:         %[[T:.*]] = memref.alloc() : memref<4xf32>
// FREED:         %[[BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[V:.*]] :
// FREED:         scf.if %{{.*}} {
// FREED-NEXT:      memref.dealloc %[[BASE]] : memref<f32>
// FREED-NEXT:    }
// FREED-NEXT:    memref.copy %[[T]]
// FREED-NEXT:    memref.dealloc %[[T]] : memref<4xf32>
// FREED-NOT:     memref.dealloc
// FREED:         return
func.func @lowered_deallocations(%v: memref<?xf32>, %owned: i1, %x: memref<4xf32>) {
  %t = memref.alloc() : memref<4xf32>
  memref.copy %x, %t : memref<4xf32> to memref<4xf32>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %v : memref<?xf32> -> memref<f32>, index, index, index
  scf.if %owned {
    memref.dealloc %base : memref<f32>
  }
  memref.copy %t, %x : memref<4xf32> to memref<4xf32>
  memref.dealloc %t : memref<4xf32>
  return
}

// -----

// A function that frees its argument or a call's result takes ownership of
// it: that is the program's to say, so it keeps its deallocations.
// CHECK-LABEL: func.func private @make
// CHECK-LABEL: func.func @frees_what_it_was_given
// CHECK-SAME:    attributes {quilt.manages_its_memory}
// CHECK: memref.dealloc %{{.*}} : memref<?xf32>
// CHECK: memref.dealloc %{{.*}} : memref<4xf32>
// FREED-LABEL: func.func @frees_what_it_was_given
// FREED-COUNT-2: memref.dealloc
// FREED-NOT: memref.dealloc
func.func private @make() -> memref<4xf32>
func.func @frees_what_it_was_given(%x: memref<?xf32>) {
  %t = func.call @make() : () -> memref<4xf32>
  memref.dealloc %x : memref<?xf32>
  memref.dealloc %t : memref<4xf32>
  return
}
