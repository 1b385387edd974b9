// RUN: quilt-opt %s --quilt-mark-runner-utils-reads -split-input-file | FileCheck %s

// MLIR's printing and verifying utilities only read the tensors they are
// given; other declarations, defined functions and an access the program
// already states are left alone.
// CHECK-LABEL: func.func private @printMemrefF32(tensor<*xf32> {bufferization.access = "read"})
// CHECK-LABEL: func.func private @verifyMemRefF32(tensor<*xf32> {bufferization.access = "read"}, tensor<*xf32> {bufferization.access = "read"}) -> i64
// CHECK-LABEL: func.func private @printMemrefShapeI8(tensor<*xi8> {bufferization.access = "read-write"})
// CHECK-LABEL: func.func private @printMemrefI32(memref<*xi32>)
// CHECK-LABEL: func.func private @mystery(tensor<*xf32>)
// CHECK-LABEL: func.func @printMemrefF64(
// CHECK-SAME:    %{{.*}}: tensor<*xf64>)
func.func private @printMemrefF32(tensor<*xf32>)
func.func private @verifyMemRefF32(tensor<*xf32>, tensor<*xf32>) -> i64
func.func private @printMemrefShapeI8(tensor<*xi8> {bufferization.access = "read-write"})
func.func private @printMemrefI32(memref<*xi32>)
func.func private @mystery(tensor<*xf32>)
func.func @printMemrefF64(%t: tensor<*xf64>) {
  return
}
