// RUN: quilt-opt %s --quilt-emit-packed-interface | FileCheck %s

// Each C wrapper gets a one-pointer entry: slot i points at parameter i's
// value (a descriptor's address, or a scalar), whatever the types.
// CHECK-LABEL: llvm.func @_quilt_call_scale(
// CHECK-SAME: %[[SLOTS:.*]]: !llvm.ptr) {
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[SLOTS]][0]
// CHECK: %[[P0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[OUT:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.getelementptr %[[SLOTS]][1]
// CHECK: %[[S2:.*]] = llvm.getelementptr %[[SLOTS]][2]
// CHECK: %[[P2:.*]] = llvm.load %[[S2]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[ALPHA:.*]] = llvm.load %[[P2]] : !llvm.ptr -> f32
// CHECK: %[[S3:.*]] = llvm.getelementptr %[[SLOTS]][3]
// CHECK: %[[P3:.*]] = llvm.load %[[S3]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[N:.*]] = llvm.load %[[P3]] : !llvm.ptr -> i64
// CHECK: llvm.call @_mlir_ciface_scale(%[[OUT]], %{{.*}}, %[[ALPHA]], %[[N]])
// CHECK-NEXT: llvm.return
llvm.func @_mlir_ciface_scale(%out: !llvm.ptr, %x: !llvm.ptr, %alpha: f32, %n: i64) {
  llvm.return
}

// A scalar result is stored through the slot after the parameters.
// CHECK-LABEL: llvm.func @_quilt_call_count(
// CHECK: %[[R:.*]] = llvm.call @_mlir_ciface_count(
// CHECK: %[[S1:.*]] = llvm.getelementptr %{{.*}}[1]
// CHECK: %[[P1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.store %[[R]], %[[P1]] : i64, !llvm.ptr
llvm.func @_mlir_ciface_count(%x: !llvm.ptr) -> i64 {
  %c = llvm.mlir.constant(1 : i64) : i64
  llvm.return %c : i64
}

// Declarations (a wrapper defined elsewhere) and other functions get none.
// CHECK-NOT: @_quilt_call_external
// CHECK-NOT: @_quilt_call_helper
llvm.func @_mlir_ciface_external(!llvm.ptr)
llvm.func @helper() {
  llvm.return
}
