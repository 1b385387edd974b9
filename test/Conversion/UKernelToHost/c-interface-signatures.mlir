// RUN: quilt-opt %s --quilt-record-signatures | FileCheck %s --check-prefix=RECORD
// RUN: quilt-opt %s --quilt-record-signatures --quilt-emit-c-interface | FileCheck %s

// Public functions with bodies get their type recorded, before
// bufferization changes it; declarations and private helpers do not.
// RECORD-LABEL: func.func @f
// RECORD-SAME: quilt.signature = "(tensor<?x4xf32>, f32) -> tensor<?x4xf32>"
// RECORD-LABEL: func.func private @helper
// RECORD-NOT: quilt.signature

// The C interface exports it as a NUL-terminated string and drops the
// attribute.
// CHECK-LABEL: func.func @f
// CHECK-SAME: llvm.emit_c_interface
// CHECK-NOT: quilt.signature
// CHECK: llvm.mlir.global external constant @_quilt_signature_f("(tensor<?x4xf32>, f32) -> tensor<?x4xf32>\00")
// CHECK-NOT: @_quilt_signature_helper
func.func @f(%x: tensor<?x4xf32>, %s: f32) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}
func.func private @helper(%x: f32) -> f32 {
  return %x : f32
}
