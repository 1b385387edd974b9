// DEFINE: %{pipeline} = device-pipeline=gpu.module(convert-gpu-to-nvvm,reconcile-unrealized-casts)
// RUN: quilt-opt %s "--quilt-lower-gpu-kernels=%{pipeline}" | FileCheck %s --check-prefix=WHOLE
// RUN: rm -rf %t && quilt-opt %s "--quilt-lower-gpu-kernels=%{pipeline} kernel-cache=%t" -o %t.cold.mlir
// RUN: FileCheck %s --check-prefix=PARTS < %t.cold.mlir
// RUN: %python -c "import os, sys; print('entries', sum(f.endswith('.mlirbc') for f in os.listdir(sys.argv[1])))" %t | FileCheck %s --check-prefix=ENTRIES
//
// An entry that does not parse is lowered again (and replaced), silently.
// RUN: %python -c "import os, sys; [open(os.path.join(sys.argv[1], f), 'w').write('not MLIR') for f in os.listdir(sys.argv[1])]" %t
// RUN: quilt-opt %s "--quilt-lower-gpu-kernels=%{pipeline} kernel-cache=%t" -o %t.relowered.mlir 2> %t.relowered.err
// RUN: diff %t.cold.mlir %t.relowered.mlir
// RUN: count 0 < %t.relowered.err
// RUN: quilt-opt %s "--quilt-lower-gpu-kernels=%{pipeline} kernel-cache=%t" -o %t.warm.mlir
// RUN: diff %t.cold.mlir %t.warm.mlir
//
// A warm compile takes each part from the cache: entries replaced by
// marked modules come back.
// RUN: %python -c "import os, sys; [open(os.path.join(sys.argv[1], f), 'w').write('gpu.module @m { llvm.func @from_the_cache_%%d() { llvm.return } }' %% i) for i, f in enumerate(sorted(os.listdir(sys.argv[1])))]" %t
// RUN: quilt-opt %s "--quilt-lower-gpu-kernels=%{pipeline} kernel-cache=%t" | FileCheck %s --check-prefix=WARM
//
// Parts that lowered one function two ways cannot share a module: it is
// lowered whole.
// RUN: %python -c "import os, sys; [open(os.path.join(sys.argv[1], f), 'w').write('gpu.module @m { llvm.func @square() attributes {marker = %%d} { llvm.return } }' %% i) for i, f in enumerate(sorted(os.listdir(sys.argv[1])))]" %t
// RUN: quilt-opt %s "--quilt-lower-gpu-kernels=%{pipeline} kernel-cache=%t" | FileCheck %s --check-prefix=WHOLE

// Without a cache the module is lowered whole, as a nested pipeline would.
// WHOLE-LABEL: gpu.module @kernels [#nvvm.target<chip = "sm_80">]
// WHOLE: llvm.func @square(
// WHOLE: llvm.func @first(
// WHOLE: llvm.func @second(
// WHOLE: llvm.func @unused(
// WHOLE-NOT: marker

// With one, kernel by kernel (each with the helper it calls): the helper
// once, what no kernel uses dropped.
// PARTS-LABEL: gpu.module @kernels [#nvvm.target<chip = "sm_80">]
// PARTS: llvm.func @square(
// PARTS: llvm.func @first({{.*}} attributes {gpu.kernel, nvvm.kernel}
// PARTS: llvm.call @square
// PARTS-NOT: llvm.func @square(
// PARTS: llvm.func @second({{.*}} attributes {gpu.kernel, nvvm.kernel}
// PARTS: llvm.call @square
// PARTS-NOT: unused
// PARTS-NOT: gpu.module
// ENTRIES: entries 2
// WARM-LABEL: gpu.module @kernels
// WARM-DAG: llvm.func @from_the_cache_0()
// WARM-DAG: llvm.func @from_the_cache_1()
// WARM-NOT: llvm.func @first

// The pass's diagnostics are tested in lower-gpu-kernels-*.mlir.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    func.func @square(%x: f32) -> f32 {
      %0 = arith.mulf %x, %x : f32
      return %0 : f32
    }
    gpu.func @first(%p: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %p[%c0] : memref<4xf32>
      %r = func.call @square(%v) : (f32) -> f32
      memref.store %r, %p[%c0] : memref<4xf32>
      gpu.return
    }
    gpu.func @second(%p: memref<4xf32>) kernel {
      %c1 = arith.constant 1 : index
      %v = memref.load %p[%c1] : memref<4xf32>
      %r = func.call @square(%v) : (f32) -> f32
      memref.store %r, %p[%c1] : memref<4xf32>
      gpu.return
    }
    func.func @unused() {
      return
    }
  }
}
