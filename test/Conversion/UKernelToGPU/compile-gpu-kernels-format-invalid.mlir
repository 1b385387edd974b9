// RUN: quilt-opt %s -verify-diagnostics --quilt-compile-gpu-kernels=format=llvm

// Other formats are gpu-module-to-binary's.
// expected-error @below {{quilt-compile-gpu-kernels: format must be isa or bin, not 'llvm'}}
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
