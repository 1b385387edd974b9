// RUN: env PATH=%t.nowhere quilt-opt %s -verify-diagnostics --quilt-compile-gpu-kernels="format=bin toolkit=%t.nowhere"

// A cubin needs ptxas: from the toolkit, else from PATH.
module attributes {gpu.container_module} {
  // expected-error @below {{format=bin needs ptxas: none in}}
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
