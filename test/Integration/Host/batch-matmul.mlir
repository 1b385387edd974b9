// batch_matmul: one selection per call, the chosen kernels run once per
// batch element on rank-reduced views.
//
// DEFINE: %{options} = target=host max-candidates=4
// DEFINE: %{run} = cat %s %S/Inputs/gemm-helpers.mlir \
// DEFINE:   | quilt-opt --quilt-lower-to-host="%{options}" \
// DEFINE:   | mlir-runner -e main -entry-point-result=void \
// DEFINE:       -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%quilt_runtime \
// DEFINE:   | FileCheck %s
//
// RUN: %{run}
// REDEFINE: %{options} = target=host max-candidates=4 policy=patch
// RUN: %{run}
// REDEFINE: %{options} = target=host max-candidates=2 policy=fixed=1
// RUN: %{run}

// CHECK-COUNT-9: case
// CHECK: max error
// CHECK-NEXT: PASS

// B, M, N, K
memref.global "private" constant @shapes : memref<9x4xi64> = dense<[
  [0, 3, 3, 3], [3, 0, 3, 3], [2, 3, 3, 0], [1, 1, 1, 1], [5, 7, 11, 13],
  [3, 43, 64, 43], [12, 17, 96, 64], [2, 130, 33, 257],
  [2, 9, 600, 301]]>

func.func @bmm(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
  return
}

func.func @bmm_f16(%a: memref<?x?x?xf16>, %b: memref<?x?x?xf16>, %c: memref<?x?x?xf16>) {
  linalg.batch_matmul ins(%a, %b : memref<?x?x?xf16>, memref<?x?x?xf16>) outs(%c : memref<?x?x?xf16>)
  return
}

// C[i] += A[i] * B[i] by loops.
func.func @reference3(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %bn = memref.dim %c, %c0 : memref<?x?x?xf32>
  %m = memref.dim %c, %c1 : memref<?x?x?xf32>
  %n = memref.dim %c, %c2 : memref<?x?x?xf32>
  %k = memref.dim %a, %c2 : memref<?x?x?xf32>
  scf.for %s = %c0 to %bn step %c1 {
    scf.for %i = %c0 to %m step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        %init = memref.load %c[%s, %i, %j] : memref<?x?x?xf32>
        %sum = scf.for %p = %c0 to %k step %c1 iter_args(%acc = %init) -> f32 {
          %x = memref.load %a[%s, %i, %p] : memref<?x?x?xf32>
          %y = memref.load %b[%s, %p, %j] : memref<?x?x?xf32>
          %xy = arith.mulf %x, %y : f32
          %next = arith.addf %acc, %xy : f32
          scf.yield %next : f32
        }
        memref.store %sum, %c[%s, %i, %j] : memref<?x?x?xf32>
      }
    }
  }
  return
}

// x[s, i, j] = flat[s * rows + i, j]: batches as stacked rows, so the 2-D
// helpers fill and compare them. (memref.expand_shape would view them in
// place, but expand-strided-metadata crashes on a dynamic one in LLVM 22.)
func.func @unflatten(%flat: memref<?x?xf32>, %x: memref<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %bn = memref.dim %x, %c0 : memref<?x?x?xf32>
  %rows = memref.dim %x, %c1 : memref<?x?x?xf32>
  %cols = memref.dim %x, %c2 : memref<?x?x?xf32>
  scf.for %s = %c0 to %bn step %c1 {
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %base = arith.muli %s, %rows : index
        %r = arith.addi %base, %i : index
        %v = memref.load %flat[%r, %j] : memref<?x?xf32>
        memref.store %v, %x[%s, %i, %j] : memref<?x?x?xf32>
      }
    }
  }
  return
}

func.func @flatten(%x: memref<?x?x?xf32>, %flat: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %bn = memref.dim %x, %c0 : memref<?x?x?xf32>
  %rows = memref.dim %x, %c1 : memref<?x?x?xf32>
  %cols = memref.dim %x, %c2 : memref<?x?x?xf32>
  scf.for %s = %c0 to %bn step %c1 {
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %base = arith.muli %s, %rows : index
        %r = arith.addi %base, %i : index
        %v = memref.load %x[%s, %i, %j] : memref<?x?x?xf32>
        memref.store %v, %flat[%r, %j] : memref<?x?xf32>
      }
    }
  }
  return
}

func.func @to_f16_3d(%src: memref<?x?x?xf32>, %dst: memref<?x?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %bn = memref.dim %src, %c0 : memref<?x?x?xf32>
  %rows = memref.dim %src, %c1 : memref<?x?x?xf32>
  %cols = memref.dim %src, %c2 : memref<?x?x?xf32>
  scf.for %s = %c0 to %bn step %c1 {
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %v = memref.load %src[%s, %i, %j] : memref<?x?x?xf32>
        %t = arith.truncf %v : f32 to f16
        memref.store %t, %dst[%s, %i, %j] : memref<?x?x?xf16>
      }
    }
  }
  return
}

func.func @from_f16_3d(%src: memref<?x?x?xf16>, %dst: memref<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %bn = memref.dim %src, %c0 : memref<?x?x?xf16>
  %rows = memref.dim %src, %c1 : memref<?x?x?xf16>
  %cols = memref.dim %src, %c2 : memref<?x?x?xf16>
  scf.for %s = %c0 to %bn step %c1 {
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %v = memref.load %src[%s, %i, %j] : memref<?x?x?xf16>
        %t = arith.extf %v : f16 to f32
        memref.store %t, %dst[%s, %i, %j] : memref<?x?x?xf32>
      }
    }
  }
  return
}

func.func @check(%bn: index, %m: index, %n: index, %k: index) -> f32 {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %bm = arith.muli %bn, %m : index
  %bk = arith.muli %bn, %k : index
  %a2 = memref.alloc(%bm, %k) : memref<?x?xf32>
  %b2 = memref.alloc(%bk, %n) : memref<?x?xf32>
  %c2d = memref.alloc(%bm, %n) : memref<?x?xf32>
  %r2 = memref.alloc(%bm, %n) : memref<?x?xf32>
  func.call @fill(%a2, %c1) : (memref<?x?xf32>, index) -> ()
  func.call @fill(%b2, %c2) : (memref<?x?xf32>, index) -> ()
  func.call @fill(%c2d, %c3) : (memref<?x?xf32>, index) -> ()
  %a = memref.alloc(%bn, %m, %k) : memref<?x?x?xf32>
  %b = memref.alloc(%bn, %k, %n) : memref<?x?x?xf32>
  %c = memref.alloc(%bn, %m, %n) : memref<?x?x?xf32>
  %r = memref.alloc(%bn, %m, %n) : memref<?x?x?xf32>
  func.call @unflatten(%a2, %a) : (memref<?x?xf32>, memref<?x?x?xf32>) -> ()
  func.call @unflatten(%b2, %b) : (memref<?x?xf32>, memref<?x?x?xf32>) -> ()
  func.call @unflatten(%c2d, %c) : (memref<?x?xf32>, memref<?x?x?xf32>) -> ()
  func.call @unflatten(%c2d, %r) : (memref<?x?xf32>, memref<?x?x?xf32>) -> ()
  func.call @bmm(%a, %b, %c) : (memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) -> ()
  func.call @reference3(%a, %b, %r) : (memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?x?x?xf32>) -> ()
  func.call @flatten(%c, %c2d) : (memref<?x?x?xf32>, memref<?x?xf32>) -> ()
  func.call @flatten(%r, %r2) : (memref<?x?x?xf32>, memref<?x?xf32>) -> ()
  %e0 = func.call @max_error(%c2d, %r2) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  // f16 throughout, against the reference rounded to f16 (and back).
  %ah = memref.alloc(%bn, %m, %k) : memref<?x?x?xf16>
  %bh = memref.alloc(%bn, %k, %n) : memref<?x?x?xf16>
  %ch = memref.alloc(%bn, %m, %n) : memref<?x?x?xf16>
  %rh = memref.alloc(%bn, %m, %n) : memref<?x?x?xf16>
  func.call @to_f16_3d(%a, %ah) : (memref<?x?x?xf32>, memref<?x?x?xf16>) -> ()
  func.call @to_f16_3d(%b, %bh) : (memref<?x?x?xf32>, memref<?x?x?xf16>) -> ()
  func.call @fill(%c2d, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @unflatten(%c2d, %c) : (memref<?x?xf32>, memref<?x?x?xf32>) -> ()
  func.call @to_f16_3d(%c, %ch) : (memref<?x?x?xf32>, memref<?x?x?xf16>) -> ()
  func.call @bmm_f16(%ah, %bh, %ch) : (memref<?x?x?xf16>, memref<?x?x?xf16>, memref<?x?x?xf16>) -> ()
  func.call @to_f16_3d(%r, %rh) : (memref<?x?x?xf32>, memref<?x?x?xf16>) -> ()
  func.call @from_f16_3d(%ch, %c) : (memref<?x?x?xf16>, memref<?x?x?xf32>) -> ()
  func.call @from_f16_3d(%rh, %r) : (memref<?x?x?xf16>, memref<?x?x?xf32>) -> ()
  func.call @flatten(%c, %c2d) : (memref<?x?x?xf32>, memref<?x?xf32>) -> ()
  func.call @flatten(%r, %r2) : (memref<?x?x?xf32>, memref<?x?xf32>) -> ()
  %e1 = func.call @max_error(%c2d, %r2) : (memref<?x?xf32>, memref<?x?xf32>) -> f32
  %w = func.call @worse(%e0, %e1) : (f32, f32) -> f32
  return %w : f32
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %count = arith.constant 9 : index
  %zero = arith.constant 0.0 : f32
  %tolerance = arith.constant 1.0e-6 : f32
  %shapes = memref.get_global @shapes : memref<9x4xi64>
  %worst = scf.for %s = %c0 to %count step %c1 iter_args(%w = %zero) -> f32 {
    %b64 = memref.load %shapes[%s, %c0] : memref<9x4xi64>
    %m64 = memref.load %shapes[%s, %c1] : memref<9x4xi64>
    %n64 = memref.load %shapes[%s, %c2] : memref<9x4xi64>
    %k64 = memref.load %shapes[%s, %c3] : memref<9x4xi64>
    %bn = arith.index_cast %b64 : i64 to index
    %m = arith.index_cast %m64 : i64 to index
    %n = arith.index_cast %n64 : i64 to index
    %k = arith.index_cast %k64 : i64 to index
    %e = func.call @check(%bn, %m, %n, %k) : (index, index, index, index) -> f32
    vector.print %bn : index
    func.call @print_case(%m, %n, %k, %e) : (index, index, index, f32) -> ()
    %next = func.call @worse(%w, %e) : (f32, f32) -> f32
    scf.yield %next : f32
  }
  func.call @report(%worst, %tolerance) : (f32, f32) -> ()
  return
}
