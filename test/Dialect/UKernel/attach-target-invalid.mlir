// RUN: quilt-opt %s -split-input-file -verify-diagnostics --ukernel-attach-target=target=h1000
// RUN: not quilt-opt %s -split-input-file --ukernel-attach-target= 2>&1 | FileCheck %s --check-prefix=NONAME
// RUN: not quilt-opt %s --ukernel-attach-target="target=x target-file=%S/Inputs/bad-targets.db" 2>&1 | FileCheck %s --check-prefix=BADFILE
// RUN: not quilt-opt %s --ukernel-attach-target="target=x target-file=%S/Inputs/missing.db" 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not quilt-opt %s --ukernel-attach-target=target=host 2>&1 | FileCheck %s --check-prefix=UNFIT

// NONAME: error: ukernel-attach-target needs a target name; known targets: h100, a100,
// BADFILE: error: cannot read target file: {{.*}}bad-targets.db:3: compute_units:
// NOFILE: error: cannot read target file: {{.*}}missing.db
// UNFIT: does not fit target 'host': instruction simt_fma needs a GPU; target host is cpu

// expected-error @below {{unknown target 'h1000'; known targets: h100, a100, v100, rtx4090, rtx3090, t4, mi300x, mi250x, rx7900xtx, host-avx512, host-avx2, host-neon, host}}
module {
  // A GPU kernel cannot run on the host.
  func.func @gpu_only(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %r = ukernel.dispatch matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>)
           candidates [#ukernel.config<tile = 64x64x8, threads = 256, warps = 2x4, thread_tile = 4x4, vector_width = 4, stages = 2, instruction = simt_fma, boundary = mask>] -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
}
