// REQUIRES: ptxas
// A cubin is kept under ptxas's whole command line, the target's
// ptxas-cmd-options included: one assembled with other options is never
// taken from the kernel cache for it. The toolkit's ptxas here writes its
// command line as the "cubin" (with the real toolkit's libdevice, which the
// kernels' compile links first; \x24 is the shell's dollar sign).
// RUN: rm -rf %t && %python -c "import os, sys; ptxas, t = sys.argv[1:]; os.makedirs(t + '/kit/bin'); os.makedirs(t + '/kit/nvvm/libdevice'); os.symlink(os.path.join(os.path.dirname(os.path.realpath(ptxas)), '../nvvm/libdevice/libdevice.10.bc'), t + '/kit/nvvm/libdevice/libdevice.10.bc'); open(t + '/kit/bin/ptxas', 'w').write('#!/bin/sh\nout=\nprev=\nfor a in \"\x24@\"; do [ \"\x24prev\" = -o ] && out=\x24a; prev=\x24a; done\necho \"ptxas \x24*\" > \"\x24out\"\n'); os.chmod(t + '/kit/bin/ptxas', 0o755)" %ptxas %t
// RUN: quilt-opt %s -split-input-file --quilt-compile-gpu-kernels="format=bin toolkit=%t/kit kernel-cache=%t/cache" | FileCheck %s
// RUN: %python -c "import os, sys; print('cubins', sum(f.endswith('.cubin') for f in os.listdir(sys.argv[1])))" %t/cache | FileCheck %s --check-prefix=ENTRIES

// CHECK-LABEL: gpu.binary @with_options
// CHECK-SAME: bin = "ptxas -arch sm_80 --opt-level 3 --maxrregcount=32 {{[^"]*}}"
module attributes {gpu.container_module} {
  gpu.module @with_options [#nvvm.target<chip = "sm_80", O = 3, flags = {"ptxas-cmd-options" = ["--maxrregcount=32"]}>] {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

// The same kernel, the same linked PTX, no options: assembled again.
// CHECK-LABEL: gpu.binary @without_options
// CHECK-SAME: bin = "ptxas -arch sm_80 --opt-level 3 /{{[^"]*}}"
module attributes {gpu.container_module} {
  gpu.module @without_options [#nvvm.target<chip = "sm_80", O = 3>] {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// ENTRIES: cubins 2
