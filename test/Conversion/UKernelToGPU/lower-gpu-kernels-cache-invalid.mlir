// RUN: quilt-opt %s -verify-diagnostics "--quilt-lower-gpu-kernels=device-pipeline=gpu.module(canonicalize) kernel-cache=%s/cache"

// A cache directory that cannot be created (under a file) is an error.
// expected-error @below {{cannot create the kernel cache directory}}
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
  }
}
