// RUN: quilt-opt %s --quilt-attach-gpu-target | FileCheck %s
// RUN: quilt-opt %s --quilt-attach-gpu-target=chip=gfx942 | FileCheck %s --check-prefix=CHIP

// An outlined kernel gets the chip of Quilt's kernels.
// CHECK: gpu.module @quilt_nvidia_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">]
// CHECK: gpu.module @fill_kernel [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">]
// With chip=, every module is compiled for it.
// CHIP: gpu.module @quilt_nvidia_kernels [#rocdl.target<O = 3, chip = "gfx942">]
// CHIP: gpu.module @fill_kernel [#rocdl.target<O = 3, chip = "gfx942">]
module attributes {gpu.container_module} {
  gpu.module @quilt_nvidia_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
  }
  gpu.module @fill_kernel {
  }
}
