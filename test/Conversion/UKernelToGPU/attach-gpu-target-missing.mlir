// RUN: quilt-opt %s -verify-diagnostics --quilt-attach-gpu-target

module attributes {gpu.container_module} {
  // expected-error @+1 {{has no target chip: generate its kernels with convert-ukernel-to-gpu or pass chip=}}
  gpu.module @fill_kernel {
  }
}
