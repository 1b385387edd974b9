// REQUIRES: ptxas
// A toolkit whose ptxas fails (with the real one's libdevice, which the
// kernels' compile links first).
// RUN: rm -rf %t && %python -c "import os, sys; ptxas, t = sys.argv[1:]; os.makedirs(t + '/bin'); os.makedirs(t + '/nvvm/libdevice'); os.symlink(os.path.join(os.path.dirname(os.path.realpath(ptxas)), '../nvvm/libdevice/libdevice.10.bc'), t + '/nvvm/libdevice/libdevice.10.bc'); open(t + '/bin/ptxas', 'w').write('#!/bin/sh\necho made to fail >&2\nexit 3\n'); os.chmod(t + '/bin/ptxas', 0o755)" %ptxas %t
// RUN: quilt-opt %s -verify-diagnostics --quilt-compile-gpu-kernels="format=bin toolkit=%t"

// ptxas failing on the linked PTX is an error with its exit status and log.
module attributes {gpu.container_module} {
  // expected-error @below {{ptxas failed on the linked kernels (exit status 3):}}
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
