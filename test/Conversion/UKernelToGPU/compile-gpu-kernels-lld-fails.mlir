// A ROCm directory whose ld.lld fails.
// RUN: rm -rf %t && %python -c "import os, sys; t = sys.argv[1]; os.makedirs(t + '/llvm/bin'); open(t + '/llvm/bin/ld.lld', 'w').write('#!/bin/sh\necho made to fail >&2\nexit 3\n'); os.chmod(t + '/llvm/bin/ld.lld', 0o755)" %t
// RUN: quilt-opt %s -verify-diagnostics --quilt-compile-gpu-kernels="format=bin toolkit=%t"

// ld.lld failing on the assembled kernels is an error with its exit status
// and log.
module attributes {gpu.container_module} {
  // expected-error @below {{ld.lld failed on the linked kernels (exit status 3):}}
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    llvm.func @k() attributes {gpu.kernel, rocdl.kernel} {
      llvm.return
    }
  }
}
