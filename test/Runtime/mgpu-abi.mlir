// Pins the mgpu* ABI: what LLVM 22's gpu-to-llvm and mlir-translate declare
// for every GPU runtime call, against the C types QuiltGpuRuntime.h
// implements. Inputs/mgpu-abi.c holds both sides, one pair per symbol: its
// IR-DAG lines are the declarations checked here, and it is compiled with
// -Werror, so a header prototype that drifts from its pinned type fails.
// When an LLVM upgrade changes a declaration, this test names it.

// RUN: %upstream_mlir_opt %s --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm,reconcile-unrealized-casts),gpu-module-to-binary{format=isa},convert-nvgpu-to-nvvm,gpu-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)' \
// RUN:   | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: FileCheck %S/Inputs/mgpu-abi.c --check-prefix=IR --input-file=%t.ll
// Every mgpu* symbol this module makes LLVM declare is one of those pinned.
// RUN: grep -c '^declare .*@mgpu' %t.ll | FileCheck %s --check-prefix=COUNT
// COUNT: 22
// RUN: %host_cc -std=c11 -Wall -Wextra -Werror -pedantic-errors -fsyntax-only \
// RUN:   -I%quilt_src_root/runtime/include %S/Inputs/mgpu-abi.c

!tma = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>

module attributes {gpu.container_module} {
  // format=isa: PTX, loaded with mgpuModuleLoadJIT.
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @scale(%buf: memref<?xf32>, %n: index) kernel {
      gpu.return
    }
  }
  // A binary: loaded with mgpuModuleLoad.
  gpu.binary @prebuilt [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "not a cubin">]

  // Streams, allocation, copies, memsets, a launch.
  func.func @async_chain(%n: index, %h: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %t2 = gpu.memcpy async [%t1] %d, %h : memref<?xf32>, memref<?xf32>
    %t3 = gpu.launch_func async [%t2] @kernels::@scale
        blocks in (%c1, %c1, %c1) threads in (%n, %c1, %c1)
        args(%d : memref<?xf32>, %n : index)
    %zero = arith.constant 0.0 : f32
    %t4 = gpu.memset async [%t3] %d, %zero : memref<?xf32>, f32
    %t5 = gpu.memcpy async [%t4] %h, %d : memref<?xf32>, memref<?xf32>
    %t6 = gpu.dealloc async [%t5] %d : memref<?xf32>
    %d16, %t7 = gpu.alloc async [%t6] (%n) : memref<?xf16>
    %z16 = arith.constant 0.0 : f16
    %t8 = gpu.memset async [%t7] %d16, %z16 : memref<?xf16>, f16
    %t9 = gpu.dealloc async [%t8] %d16 : memref<?xf16>
    gpu.wait [%t9]
    return
  }

  // Managed memory, device selection, host registration.
  func.func @host_side(%n: index, %h: memref<?xf32>) -> memref<?xf32> {
    %c0 = arith.constant 0 : i32
    gpu.set_default_device %c0
    %u = memref.cast %h : memref<?xf32> to memref<*xf32>
    gpu.host_register %u : memref<*xf32>
    gpu.host_unregister %u : memref<*xf32>
    %shared = gpu.alloc host_shared (%n) : memref<?xf32>
    return %shared : memref<?xf32>
  }

  // Two streams joined by events; a synchronous launch of the binary.
  func.func @events(%n: index) {
    %c1 = arith.constant 1 : index
    %a = gpu.wait async
    %b = gpu.wait async
    %m1, %ta = gpu.alloc async [%a] (%n) : memref<?xf32>
    %m2, %tb = gpu.alloc async [%b] (%n) : memref<?xf32>
    %t = gpu.wait async [%ta, %tb]
    %tc = gpu.memcpy async [%t] %m1, %m2 : memref<?xf32>, memref<?xf32>
    gpu.wait [%tc]
    gpu.launch_func @prebuilt::@k blocks in (%c1, %c1, %c1)
        threads in (%n, %c1, %c1) args(%n : index)
    return
  }

  // A token that is not a stream is an event.
  func.func @event_wait(%t: !gpu.async.token) {
    gpu.wait [%t]
    return
  }

  // A TMA descriptor (sm_90).
  func.func @tensor_map(%d: memref<128x128xf16>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %u = memref.cast %d : memref<128x128xf16> to memref<*xf16>
    %desc = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !tma
    %p = builtin.unrealized_conversion_cast %desc : !tma to !llvm.ptr
    gpu.launch_func @prebuilt::@t blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%p : !llvm.ptr)
    return
  }
}
