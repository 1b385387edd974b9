// RUN: quilt-opt %s -verify-diagnostics --quilt-compile-gpu-kernels=kernel-cache=%s/cache

// A kernel cache directory that cannot be made (here, under a file) is an
// error, not a compile without the cache.
// expected-error @below {{cannot create the kernel cache directory}}
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
