// RUN: quilt-opt %s -verify-diagnostics --quilt-compile-gpu-kernels

// A kernel the NVVM target cannot compile (here: an op with no LLVM IR
// translation left in it) fails the pass after the target's own error.
module attributes {gpu.container_module} {
  // expected-error @below {{Failed creating the llvm::Module.}}
  // expected-error @below {{cannot compile the kernel's module}}
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{cannot be converted to LLVM IR}}
      %0 = arith.constant 0 : i32
      llvm.return
    }
  }
}
