// RUN: quilt-opt %s -split-input-file -verify-diagnostics \
// RUN:   --quilt-attach-gpu-target="vendor=nvidia pipeline=quilt-lower-to-nvvm"

// A pipeline lowering for one vendor, given kernels for the other's chip:
// an error naming the pipeline to use, before the other vendor's lowering
// aborts on them.
module attributes {gpu.container_module} {
  // expected-error @+1 {{'quilt-lower-to-nvvm' compiles for NVIDIA GPUs, but the kernels are for gfx942 (AMD): use quilt-lower-to-rocdl, or an NVIDIA target (h100, a100, ...)}}
  gpu.module @quilt_kernels [#rocdl.target<chip = "gfx942">] {
  }
}

// -----

// The vendor's own chip passes.
module attributes {gpu.container_module} {
  gpu.module @quilt_kernels [#nvvm.target<chip = "sm_90a">] {
  }
}
