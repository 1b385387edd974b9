// RUN: quilt-opt %s -split-input-file --quilt-compile-gpu-kernels | FileCheck %s
// RUN: rm -rf %t && quilt-opt %s -split-input-file --quilt-compile-gpu-kernels=kernel-cache=%t -o %t.cold.mlir
// RUN: %python -c "import os, sys; print('entries', sum(f.endswith('.ptx') for f in os.listdir(sys.argv[1])))" %t | FileCheck %s --check-prefix=ENTRIES
// RUN: %python -c "import os, sys; [open(os.path.join(sys.argv[1], f), 'a').write('\n.global .align 1 .b8 from_the_cache;\n') for f in os.listdir(sys.argv[1])]" %t
// RUN: quilt-opt %s -split-input-file --quilt-compile-gpu-kernels=kernel-cache=%t | FileCheck %s --check-prefix=WARM

// Each kernel is compiled with what it uses (the helper, the shared
// memory, which NVPTX then moves into the one function using it), the
// parts' PTX is linked into one gpu.binary (the helper once), and what no
// kernel uses is dropped. A module with two targets is left to
// gpu-module-to-binary (AMD modules: compile-gpu-kernels-amdgpu.mlir).
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-NOT: gpu.module @kernels
// CHECK: gpu.binary @kernels {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_80">, properties = {O = 3 : i32}, assembly =
// CHECK-SAME: .target sm_80
// CHECK-SAME: (.param .b32 func_retval0) square(
// CHECK-SAME: .visible .entry first(
// CHECK-SAME: .shared .align 16 .b8 tile;
// CHECK-SAME: call.uni (retval0), square,
// CHECK-SAME: .visible .entry second(
// CHECK-SAME: .shared .align 16 .b8 tile;
// CHECK-SAME: call.uni (retval0), square,
// CHECK-NOT: unused
// CHECK: gpu.module @two_targets [#nvvm.target<chip = "sm_80">, #rocdl.target<chip = "gfx942">]

// A cache entry per part: this split's two kernels and the next split's
// one part. A second compile takes every part from the cache (each entry
// was marked after the first).
// ENTRIES: entries 3
// WARM: gpu.binary @kernels
// WARM-SAME: .global .align 1 .b8 from_the_cache;
// WARM: gpu.binary @shared_state
// WARM-SAME: .global .align 1 .b8 from_the_cache;

// The pass's diagnostics are tested in compile-gpu-kernels-*.mlir.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80", O = 3>] {
    llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.func internal @square(%x: f32) -> f32 attributes {no_inline} {
      %0 = llvm.fmul %x, %x : f32
      llvm.return %0 : f32
    }
    llvm.func @first(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %v = llvm.load %p : !llvm.ptr -> f32
      llvm.store volatile %v, %t : f32, !llvm.ptr<3>
      %w = llvm.load volatile %t : !llvm.ptr<3> -> f32
      %r = llvm.call @square(%w) : (f32) -> f32
      llvm.store %r, %p : f32, !llvm.ptr
      llvm.return
    }
    llvm.func @second(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %v = llvm.load volatile %t : !llvm.ptr<3> -> f32
      %r = llvm.call @square(%v) : (f32) -> f32
      llvm.store %r, %p : f32, !llvm.ptr
      llvm.return
    }
    llvm.func @unused() {
      llvm.return
    }
  }
  gpu.module @two_targets [#nvvm.target<chip = "sm_80">, #rocdl.target<chip = "gfx942">] {
  }
}

// -----

// Kernels that share a variable in device memory are compiled as one part:
// apart, each kernel's optimizer would assume it alone writes it.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.binary @shared_state
// CHECK-SAME: .global .align 4 .u32 counter
// CHECK-SAME: .visible .entry count(
// CHECK-SAME: .visible .entry read(
module attributes {gpu.container_module} {
  gpu.module @shared_state [#nvvm.target<chip = "sm_80">] {
    llvm.mlir.global internal @counter(0 : i32) {addr_space = 1 : i32} : i32
    llvm.func @count() attributes {gpu.kernel, nvvm.kernel} {
      %c = llvm.mlir.addressof @counter : !llvm.ptr<1>
      %one = llvm.mlir.constant(1 : i32) : i32
      %old = llvm.atomicrmw add %c, %one monotonic : !llvm.ptr<1>, i32
      llvm.return
    }
    llvm.func @read(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %c = llvm.mlir.addressof @counter : !llvm.ptr<1>
      %v = llvm.load %c : !llvm.ptr<1> -> i32
      llvm.store %v, %p : i32, !llvm.ptr
      llvm.return
    }
  }
}
