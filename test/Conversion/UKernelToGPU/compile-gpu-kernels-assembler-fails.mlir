// A kernel's assembly that LLVM's assembler rejects (a cache entry spoiled
// after the first compile) is an error quoting the assembler, not a code
// object without the line.
// RUN: rm -rf %t && quilt-opt %s --quilt-compile-gpu-kernels=kernel-cache=%t -o %t.first.mlir
// RUN: %python -c "import os, sys; [open(os.path.join(sys.argv[1], f), 'a').write('\tnot_an_instruction v0\n') for f in os.listdir(sys.argv[1])]" %t
// RUN: quilt-opt %s -verify-diagnostics --quilt-compile-gpu-kernels="format=bin kernel-cache=%t"

module attributes {gpu.container_module} {
  // expected-error-re @below {{cannot assemble the linked kernels:{{.*}}not_an_instruction}}
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    llvm.func @k() attributes {gpu.kernel, rocdl.kernel} {
      llvm.return
    }
  }
}
