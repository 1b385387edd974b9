// RUN: quilt-opt %s -split-input-file --quilt-gpu-tensor-maps-as-params -verify-diagnostics

// The marker belongs on a lowered kernel.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  // expected-error @below {{'ukernel.tensor_maps_as_params' must be on a lowered NVVM kernel}}
  llvm.func @helper(%map: !llvm.ptr) attributes {ukernel.tensor_maps_as_params} {
    nvvm.prefetch tensormap, %map : !llvm.ptr
    llvm.return
  }
}

// -----

gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  // expected-error @below {{'ukernel.tensor_maps_as_params' on a kernel that reads no tensor map}}
  llvm.func @none(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel, ukernel.tensor_maps_as_params} {
    llvm.return
  }
}

// -----

// A map passed by value lives in the kernel's parameters, which are
// read-only: anything but TMA using it is refused.
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  // expected-error @below {{tensor map argument 0 is used by 'llvm.store'; a map passed by value is only read by TMA}}
  llvm.func @escapes(%map: !llvm.ptr, %out: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel, ukernel.tensor_maps_as_params} {
    nvvm.prefetch tensormap, %map : !llvm.ptr
    llvm.store %map, %out : !llvm.ptr, !llvm.ptr
    llvm.return
  }
}

// -----

// The launch must hand over the buffer holding the map.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    llvm.func @tma(%map: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel, ukernel.tensor_maps_as_params} {
      nvvm.prefetch tensormap, %map : !llvm.ptr
      llvm.return
    }
  }
  func.func @launch(%map: i64) {
    %one = arith.constant 1 : index
    // expected-error @below {{the operand for tensor map argument 0 of 'tma' must be a pointer to its bytes}}
    gpu.launch_func @kernels::@tma blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%map : i64)
    return
  }
}

// -----

// A launch whose operands do not convert to the kernel's arguments.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    llvm.func @tma(%map: !llvm.ptr, %n: i64) attributes {gpu.kernel, nvvm.kernel, ukernel.tensor_maps_as_params} {
      nvvm.prefetch tensormap, %map : !llvm.ptr
      llvm.return
    }
  }
  func.func @launch(%map: !llvm.ptr) {
    %one = arith.constant 1 : index
    // expected-error @below {{cannot match the operands of this launch to the 2 arguments of 'tma'}}
    gpu.launch_func @kernels::@tma blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%map : !llvm.ptr)
    return
  }
}
