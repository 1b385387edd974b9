// RUN: quilt-opt %s --quilt-guard-allocation-sizes -split-input-file | FileCheck %s

// A buffer sized by the caller: each dynamic size is checked (negative, or
// taking the bytes past 2^62 unless some size is 0), the first failure is
// reported, and the allocation gets 0 for every dynamic size then.

// CHECK: llvm.mlir.global internal constant @[[TEXT:.*]]("@result: a new memref<?x4x?xf32>\00")
// CHECK: func.func private @quilt_rt_report_operand_error(!llvm.ptr, i32, i64, i64) -> i32
// CHECK-LABEL: func.func @result(
// CHECK-SAME:    %[[M:.*]]: index, %[[N:.*]]: index)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[LIMIT:.*]] = arith.constant 4611686018427387904 : index
// 4 x f32 per row of M: 16 bytes before the dynamic sizes.
// CHECK-DAG:     %[[STATIC:.*]] = arith.constant 16 : index
// CHECK:         %[[MNEG:.*]] = arith.cmpi slt, %[[M]], %[[ZERO]]
// CHECK:         %[[MDIV:.*]] = arith.maxsi %[[M]]
// CHECK:         %[[MMAX:.*]] = arith.divsi %[[LIMIT]], %[[MDIV]]
// CHECK:         arith.cmpi sgt, %[[STATIC]], %[[MMAX]]
// CHECK:         %[[NNEG:.*]] = arith.cmpi slt, %[[N]], %[[ZERO]]
// Negative sizes come first: dimension 0 (26), then dimension 2 (26 | 2 << 12).
// CHECK:         arith.constant 8219 : i32
// CHECK:         arith.constant 27 : i32
// CHECK:         %[[CODE2:.*]] = arith.constant 8218 : i32
// CHECK:         arith.select %[[NNEG]], %[[CODE2]]
// CHECK:         %[[CODE0:.*]] = arith.constant 26 : i32
// CHECK:         %[[CODE:.*]] = arith.select %[[MNEG]], %[[CODE0]]
// CHECK:         %[[FAILED:.*]] = arith.cmpi ne, %[[CODE]]
// CHECK:         scf.if %[[FAILED]] {
// CHECK:           %[[ADDRESS:.*]] = llvm.mlir.addressof @[[TEXT]]
// CHECK:           func.call @quilt_rt_report_operand_error(%[[ADDRESS]], %[[CODE]],
// CHECK:         }
// CHECK:         %[[CM:.*]] = arith.select %[[FAILED]], %[[ZERO]], %[[M]]
// CHECK:         %[[CN:.*]] = arith.select %[[FAILED]], %[[ZERO]], %[[N]]
// CHECK:         memref.alloc(%[[CM]], %[[CN]]) : memref<?x4x?xf32>
func.func @result(%m: index, %n: index) -> memref<?x4x?xf32> {
  %0 = memref.alloc(%m, %n) : memref<?x4x?xf32>
  return %0 : memref<?x4x?xf32>
}

// -----

// Static sizes need no check (nor does a buffer with a static size 0, nor a
// stack allocation).
// CHECK-NOT: quilt_rt_report_operand_error
// CHECK-LABEL: func.func @static_sizes(
// CHECK:         memref.alloc() : memref<4x8xf16>
// CHECK:         memref.alloc(%{{.*}}) : memref<0x?xf32>
// CHECK:         memref.alloca(%{{.*}}) : memref<?xi8>
// CHECK-NOT:     scf.if
func.func @static_sizes(%n: index) {
  %0 = memref.alloc() : memref<4x8xf16>
  %1 = memref.alloc(%n) : memref<0x?xf32>
  %2 = memref.alloca(%n) : memref<?xi8>
  memref.dealloc %0 : memref<4x8xf16>
  memref.dealloc %1 : memref<0x?xf32>
  return
}

// -----

// Checks in a nested region are made where the allocation is; elements of
// a vector type count their whole size (16 x 8 bytes).
// CHECK-LABEL: func.func @in_loop(
// CHECK:         scf.for
// CHECK:           arith.constant 128 : index
// CHECK:           scf.if
// CHECK:             func.call @quilt_rt_report_operand_error
// CHECK:           memref.alloc(%{{.*}}) : memref<?xvector<16xf64>>
func.func @in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %0 = memref.alloc(%i) : memref<?xvector<16xf64>>
    memref.dealloc %0 : memref<?xvector<16xf64>>
  }
  return
}
