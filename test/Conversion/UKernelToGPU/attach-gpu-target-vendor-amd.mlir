// RUN: quilt-opt %s -split-input-file -verify-diagnostics \
// RUN:   --quilt-attach-gpu-target=vendor=amd

// Without a pipeline name the error says "this pipeline".
module attributes {gpu.container_module} {
  // expected-error @+1 {{this pipeline compiles for AMD GPUs, but the kernels are for sm_90a (NVIDIA): use quilt-lower-to-nvvm, or an AMD target (mi300x, mi250x, ...)}}
  gpu.module @quilt_kernels [#nvvm.target<chip = "sm_90a">] {
  }
}

// -----

// A module without a target takes the others' (here none: a chip from
// quilt_kernels), then passes.
module attributes {gpu.container_module} {
  gpu.module @quilt_kernels [#rocdl.target<chip = "gfx942">] {
  }
  gpu.module @fill_kernel {
  }
}
