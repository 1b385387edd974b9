// RUN: quilt-opt %s --quilt-lower-to-host="target=host-avx2 max-candidates=2" | FileCheck %s
// RUN: quilt-opt %s --quilt-lower-to-host="target=host-avx2 max-candidates=2 c-interface=false" | FileCheck %s --check-prefix=NOCIFACE
// RUN: quilt-opt %s --quilt-emit-c-interface | FileCheck %s --check-prefix=CIFACE

// From linalg on tensors to the LLVM dialect: the public function gets a C
// interface wrapper taking memref descriptors; the runtime's entry point is
// declared as is (no wrapper, no _mlir_ciface_ symbol); kernels are
// internal; nothing but LLVM remains.
// CHECK-NOT: ukernel
// CHECK-DAG: llvm.func @quilt_rt_select(!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func internal @__quilt_host_gemm_{{.*}}_v8_f32_f32(
// CHECK-DAG: llvm.func @_mlir_ciface_mlp(
// CHECK-DAG: llvm.func @mlp(
// CHECK-NOT: _mlir_ciface_quilt_rt_select
// CHECK-NOT: _mlir_ciface___quilt
// CHECK-NOT: func.func
// CHECK-NOT: memref.

// NOCIFACE-NOT: _mlir_ciface_

// CIFACE-LABEL: func.func @mlp
// CIFACE-SAME: llvm.emit_c_interface
// CIFACE: func.func private @helper
// CIFACE-NOT: llvm.emit_c_interface
// CIFACE: func.func private @external
// CIFACE-NOT: llvm.emit_c_interface

func.func @mlp(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %out: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%out : tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = func.call @helper(%0) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

func.func private @helper(%t: tensor<?x?xf32>) -> tensor<?x?xf32> {
  return %t : tensor<?x?xf32>
}

func.func private @external(f32) -> f32
