// RUN: quilt-opt %s -split-input-file -verify-diagnostics --quilt-attach-gpu-target=chip=sm_70

// A chip without an instruction the kernels use: a diagnostic at the op.
module attributes {gpu.container_module} {
  gpu.module @quilt_nvidia_kernels {
    gpu.func @k(%src: memref<16xf32>, %dst: memref<16xf32, 3>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{chip 'sm_70' cannot run this kernel: it uses cp.async (nvgpu.device_async_copy), which needs sm_80 or later}}
      %t = nvgpu.device_async_copy %src[%c0], %dst[%c0], 4 : memref<16xf32> to memref<16xf32, 3>
      gpu.return
    }
  }
}

// -----

// A kernel for the other vendor.
module attributes {gpu.container_module} {
  gpu.module @quilt_amdgpu_kernels {
    gpu.func @k() kernel {
      // expected-error @+1 {{chip 'sm_70' cannot run this kernel: it is for an AMD GPU (rocdl.s.barrier)}}
      rocdl.s.barrier
      gpu.return
    }
  }
}
