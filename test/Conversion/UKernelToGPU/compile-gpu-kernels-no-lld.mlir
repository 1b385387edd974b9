// RUN: env PATH=%t.nowhere quilt-opt %s -verify-diagnostics --quilt-compile-gpu-kernels="format=bin toolkit=%t.nowhere"

// An AMD code object needs ld.lld: from the ROCm directory, else from PATH.
module attributes {gpu.container_module} {
  // expected-error @below {{format=bin needs ld.lld: none in}}
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    llvm.func @k() attributes {gpu.kernel, rocdl.kernel} {
      llvm.return
    }
  }
}
