// Parts whose assembly cannot be joined (here: both cache entries spoiled
// into the same kernel after the first compile) are an error naming why.
// RUN: rm -rf %t && quilt-opt %s --quilt-compile-gpu-kernels=kernel-cache=%t -o %t.first.mlir
// RUN: %python -c "import os, sys; d = sys.argv[1]; f = sorted(os.listdir(d)); t = open(os.path.join(d, f[0])).read(); [open(os.path.join(d, n), 'w').write(t) for n in f]" %t
// RUN: quilt-opt %s -verify-diagnostics --quilt-compile-gpu-kernels=kernel-cache=%t

module attributes {gpu.container_module} {
  // expected-error-re @below {{cannot link the kernels' AMDGCN assembly: two parts define the kernel '{{first|second}}'}}
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    llvm.func @first() attributes {gpu.kernel, rocdl.kernel} {
      llvm.return
    }
    llvm.func @second() attributes {gpu.kernel, rocdl.kernel} {
      llvm.return
    }
  }
}
