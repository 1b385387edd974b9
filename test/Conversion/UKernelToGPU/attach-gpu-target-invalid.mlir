// RUN: quilt-opt %s -verify-diagnostics --quilt-attach-gpu-target=chip=tpu9

// expected-error @+1 {{quilt-attach-gpu-target: unknown chip 'tpu9' (expected sm_* for NVIDIA or gfx* for AMD)}}
module attributes {gpu.container_module} {
  gpu.module @fill_kernel {
  }
}
