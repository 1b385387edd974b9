// RUN: quilt-opt %s --ukernel-attach-target=target=a100 "--convert-linalg-to-ukernel=max-candidates=3 policy=fixed=1" --convert-ukernel-to-gpu | FileCheck %s
// RUN: quilt-opt %s --ukernel-attach-target=target=mi300x "--convert-linalg-to-ukernel=max-candidates=3 policy=fixed=1" --convert-ukernel-to-gpu | FileCheck %s

// Under policy fixed a dispatch launches only its fixed candidate, in each
// region without a switch, and the device module holds that one kernel; the
// selection spec still lists all three (the run-time checks and reports).
// CHECK-LABEL: func.func @mm(
// CHECK:         call @quilt_rt_select(
// CHECK-NOT:     scf.index_switch
// CHECK:         gpu.launch_func {{ *}}@quilt_{{nvidia|amdgpu}}_kernels::@[[KERNEL:quilt_[0-9a-z_]+]] blocks
// CHECK-NOT:     scf.index_switch
// CHECK:         gpu.launch_func {{ *}}@quilt_{{nvidia|amdgpu}}_kernels::@[[KERNEL]] blocks
// CHECK:       gpu.module @quilt_{{nvidia|amdgpu}}_kernels
// CHECK-COUNT-1: gpu.func @quilt_
// And the copy kernel of operands with unaligned rows (OperandRepack.cpp).
// CHECK:         gpu.func @quilt_repack_f16_2d(
// CHECK-NOT:     gpu.func @quilt_
func.func @mm(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>)
                outs(%c : memref<?x?xf32>)
  return
}
