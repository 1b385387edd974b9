// RUN: quilt-opt %s -verify-diagnostics "--quilt-lower-gpu-kernels=device-pipeline=gpu.module(no-such-pass)"
// RUN: quilt-opt %s -verify-diagnostics "--quilt-lower-gpu-kernels=device-pipeline=func.func(canonicalize)"

// A device pipeline that does not parse, or is not anchored on gpu.module,
// is an error naming it.
// expected-error @below {{quilt-lower-gpu-kernels: cannot use device-pipeline}}
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
  }
}
