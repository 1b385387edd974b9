// RUN: quilt-opt %s -split-input-file -verify-diagnostics --quilt-merge-gpu-modules | FileCheck %s

// Outlined kernels join Quilt's kernel module, which keeps its target; a
// colliding name is renamed with its uses, and launches follow.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.module @quilt_nvidia_kernels [#nvvm.target<chip = "sm_80">]
// CHECK-DAG: gpu.func @quilt_kernel() kernel
// CHECK-DAG: gpu.func @fill() kernel
// CHECK-DAG: gpu.func @fill_1() kernel
// CHECK-NOT: gpu.module
// CHECK-LABEL: func.func @host
// CHECK: gpu.launch_func @quilt_nvidia_kernels::@quilt_kernel
// CHECK: gpu.launch_func @quilt_nvidia_kernels::@fill_1
// CHECK: gpu.launch_func @quilt_nvidia_kernels::@fill
module attributes {gpu.container_module} {
  gpu.module @quilt_nvidia_kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @quilt_kernel() kernel { gpu.return }
    gpu.func @fill() kernel { gpu.return }
  }
  gpu.module @fill_kernel {
    gpu.func @fill() kernel { gpu.return }
  }
  gpu.module @other_kernel {
    gpu.func @other() kernel { gpu.return }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @quilt_nvidia_kernels::@quilt_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @fill_kernel::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @quilt_nvidia_kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// Without a Quilt module the first one collects the others.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.module @a_kernel {
// CHECK: gpu.func @a() kernel
// CHECK: gpu.func @b() kernel
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  gpu.module @a_kernel {
    gpu.func @a() kernel { gpu.return }
  }
  gpu.module @b_kernel {
    gpu.func @b() kernel { gpu.return }
  }
}

// -----

// Device code for two chips cannot be one module.
module attributes {gpu.container_module} {
  gpu.module @quilt_nvidia_kernels [#nvvm.target<chip = "sm_80">] {
  }
  // expected-error @+1 {{has other targets than @quilt_nvidia_kernels: device code for two chips cannot be one module}}
  gpu.module @other [#nvvm.target<chip = "sm_90a">] {
  }
}
