// RUN: quilt-opt %s -split-input-file --quilt-strided-copies-to-loops | FileCheck %s
// RUN: quilt-opt %s -split-input-file --quilt-strided-copies-to-loops=as-linalg=true | FileCheck %s --check-prefix=LINALG

// GPU pipelines: the same copies as linalg.copy, which they map to kernels.
// LINALG-LABEL: func.func @into_subview
// LINALG-NOT: memref.copy
// LINALG: linalg.copy ins(%{{.*}} : memref<?x?xf32>) outs(%{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>)
// LINALG-NOT: scf.for

// A copy into a strided view (a padded tensor's interior) becomes loops of
// loads and stores: finalize-memref-to-llvm would call memrefCopy, which a
// Quilt library does not link.
// CHECK-LABEL: func.func @into_subview
// CHECK-NOT: memref.copy
// CHECK: scf.for %[[I:.*]] =
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK: memref.store %[[V]], %{{.*}}[%[[I]], %[[J]]] : memref<?x?xf32, strided<[?, 1], offset: ?>>
func.func @into_subview(%src: memref<?x?xf32>, %dst: memref<?x?xf32>, %m: index, %n: index) {
  %c1 = arith.constant 1 : index
  %view = memref.subview %dst[%c1, %c1] [%m, %n] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  memref.copy %src, %view : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  return
}

// -----

// Copies between identity layouts stay: they become memcpy.
// CHECK-LABEL: func.func @identity
// CHECK: memref.copy
func.func @identity(%src: memref<?x?xf32>, %dst: memref<?x?xf32>) {
  memref.copy %src, %dst : memref<?x?xf32> to memref<?x?xf32>
  return
}
