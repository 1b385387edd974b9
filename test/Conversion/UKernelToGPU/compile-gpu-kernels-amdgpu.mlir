// RUN: quilt-opt %s -split-input-file --quilt-compile-gpu-kernels | FileCheck %s
// RUN: quilt-opt %s -split-input-file --quilt-compile-gpu-kernels=format=bin | FileCheck %s --check-prefix=BIN
// RUN: rm -rf %t && quilt-opt %s -split-input-file --quilt-compile-gpu-kernels=kernel-cache=%t -o %t.cold.mlir
// RUN: %python -c "import os, sys; print('entries', sum(f.endswith('.s') for f in os.listdir(sys.argv[1])))" %t | FileCheck %s --check-prefix=ENTRIES
// RUN: %python -c "import os, sys; [open(os.path.join(sys.argv[1], f), 'a').write('; from the cache\n') for f in os.listdir(sys.argv[1])]" %t
// RUN: quilt-opt %s -split-input-file --quilt-compile-gpu-kernels=kernel-cache=%t | FileCheck %s --check-prefix=WARM
// RUN: quilt-opt %s -split-input-file --quilt-compile-gpu-kernels="format=bin kernel-cache=%t" -o %t.bin.mlir
// RUN: %python -c "import os, sys; print('binaries', sum(f.endswith('.hsaco') for f in os.listdir(sys.argv[1])))" %t | FileCheck %s --check-prefix=BINARIES

// AMD modules compiled kernel by kernel: each part is AMDGCN assembly, and
// the linked file has one header, both kernels with their descriptors, the
// helper each part compiled (renamed in the second part, with the register
// counts named after it), one metadata block listing both kernels, and no
// function no kernel uses.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-NOT: gpu.module @kernels
// CHECK: gpu.binary @kernels {{ *}}[#gpu.object<#rocdl.target<chip = "gfx942">, assembly =
// CHECK-SAME: .amdgcn_target \22amdgcn-amd-amdhsa--gfx942\22
// CHECK-SAME: square:
// CHECK-SAME: .set square.num_vgpr,
// CHECK-SAME: first:
// CHECK-SAME: square@gotpcrel32@lo
// CHECK-SAME: .amdhsa_kernel first
// CHECK-SAME: .set first.num_vgpr, max({{[0-9]+}}, square.num_vgpr)
// CHECK-SAME: square__part1:
// CHECK-SAME: .Lpart1_func_end0-square__part1
// CHECK-SAME: .set square__part1.num_vgpr,
// CHECK-SAME: second:
// CHECK-SAME: square__part1@gotpcrel32@lo
// CHECK-SAME: .amdhsa_kernel second
// CHECK-SAME: .set second.num_vgpr, max({{[0-9]+}}, square__part1.num_vgpr)
// CHECK-SAME: .set amdgpu.max_num_vgpr, 1
// CHECK-SAME: .amdgpu_metadata
// CHECK-SAME: amdhsa.kernels:
// CHECK-SAME: .name: first
// CHECK-SAME: .name: second
// CHECK-SAME: amdhsa.target: amdgcn-amd-amdhsa--gfx942
// CHECK-SAME: .end_amdgpu_metadata
// CHECK-NOT: unused
// CHECK-NOT: amdgcn_target

// format=bin: LLVM's assembler and ld.lld make one code object.
// BIN: gpu.binary @kernels {{ *}}[#gpu.object<#rocdl.target<chip = "gfx942">, bin = "\7FELF

// A cache entry per part: this split's two kernels and the next split's
// one part; one code object per split. A second compile takes every part
// from the cache (each entry was marked after the first).
// ENTRIES: entries 3
// BINARIES: binaries 2
// WARM: gpu.binary @kernels
// WARM-SAME: ; from the cache
// WARM: gpu.binary @shared_state
// WARM-SAME: ; from the cache

// The pass's AMD diagnostics are tested in compile-gpu-kernels-*-lld*.mlir;
// the assembly linker's in unittests/Conversion/AmdgcnLinkingTest.cpp.
module attributes {gpu.container_module} {
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    llvm.func @square(%x: f32) -> f32 attributes {no_inline} {
      %0 = llvm.fmul %x, %x : f32
      llvm.return %0 : f32
    }
    llvm.func @first(%p: !llvm.ptr<1>) attributes {gpu.kernel, rocdl.kernel} {
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %r = llvm.call @square(%v) : (f32) -> f32
      llvm.store %r, %p : f32, !llvm.ptr<1>
      llvm.return
    }
    llvm.func @second(%p: !llvm.ptr<1>) attributes {gpu.kernel, rocdl.kernel} {
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      %w = llvm.fadd %v, %v : f32
      %r = llvm.call @square(%w) : (f32) -> f32
      llvm.store %r, %p : f32, !llvm.ptr<1>
      llvm.return
    }
    llvm.func @unused() {
      llvm.return
    }
  }
}

// -----

// Kernels that share a variable in device memory are compiled as one part.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.binary @shared_state
// CHECK-SAME: count:
// CHECK-SAME: read:
// CHECK-SAME: .comm\09counter,4,2
module attributes {gpu.container_module} {
  gpu.module @shared_state [#rocdl.target<chip = "gfx942">] {
    llvm.mlir.global internal @counter(0 : i32) {addr_space = 1 : i32} : i32
    llvm.func @count() attributes {gpu.kernel, rocdl.kernel} {
      %c = llvm.mlir.addressof @counter : !llvm.ptr<1>
      %one = llvm.mlir.constant(1 : i32) : i32
      %old = llvm.atomicrmw add %c, %one monotonic : !llvm.ptr<1>, i32
      llvm.return
    }
    llvm.func @read(%p: !llvm.ptr<1>) attributes {gpu.kernel, rocdl.kernel} {
      %c = llvm.mlir.addressof @counter : !llvm.ptr<1>
      %v = llvm.load %c : !llvm.ptr<1> -> i32
      llvm.store %v, %p : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
