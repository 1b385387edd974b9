// Transposed operands (linalg.matmul indexing maps), for which the kernels
// pack along the other dimension, and operands with non-unit inner strides
// (element-wise packing, C staged in an f32 copy).
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
// REDEFINE: %{options} = target=host-avx2 max-candidates=2 policy=fixed=1
// RUN: %{run}

// CHECK-COUNT-11: case
// CHECK: max error
// CHECK-NEXT: PASS

memref.global "private" constant @shapes : memref<11x3xi64> = dense<[
  [0, 3, 3], [3, 3, 0], [1, 1, 1], [2, 19, 3], [23, 5, 29], [97, 101, 103],
  [130, 33, 257], [7, 300, 300], [1030, 17, 9],
  [13, 700, 301], [1, 4200, 9]]>

#lhs_t = affine_map<(m, n, k) -> (k, m)>
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs_t = affine_map<(m, n, k) -> (n, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#out = affine_map<(m, n, k) -> (m, n)>

func.func @gemm_tl(%at: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul indexing_maps = [#lhs_t, #rhs, #out]
    ins(%at, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}
func.func @gemm_tr(%a: memref<?x?xf32>, %bt: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul indexing_maps = [#lhs, #rhs_t, #out]
    ins(%a, %bt : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}
func.func @gemm_tt(%at: memref<?x?xbf16>, %bt: memref<?x?xbf16>, %c: memref<?x?xf32>) {
  linalg.matmul indexing_maps = [#lhs_t, #rhs_t, #out]
    ins(%at, %bt : memref<?x?xbf16>, memref<?x?xbf16>) outs(%c : memref<?x?xf32>)
  return
}

#strided = strided<[?, ?], offset: ?>
func.func @gemm_strided(%a: memref<?x?xf32, #strided>, %b: memref<?x?xf32, #strided>, %c: memref<?x?xf32, #strided>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32, #strided>, memref<?x?xf32, #strided>) outs(%c : memref<?x?xf32, #strided>)
  return
}

// Every other column of a twice-as-wide buffer, holding `x`.
func.func @spread(%x: memref<?x?xf32>, %wide: memref<?x?xf32>) -> memref<?x?xf32, #strided> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  %view = memref.subview %wide[0, 1] [%rows, %cols] [1, 2] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 2], offset: 1>>
  %cast = memref.cast %view : memref<?x?xf32, strided<[?, 2], offset: 1>> to memref<?x?xf32, #strided>
  memref.copy %x, %cast : memref<?x?xf32> to memref<?x?xf32, #strided>
  return %cast : memref<?x?xf32, #strided>
}

func.func @check(%m: index, %n: index, %k: index) -> f32 {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %a = memref.alloc(%m, %k) : memref<?x?xf32>
  %b = memref.alloc(%k, %n) : memref<?x?xf32>
  %at = memref.alloc(%k, %m) : memref<?x?xf32>
  %bt = memref.alloc(%n, %k) : memref<?x?xf32>
  %r = memref.alloc(%m, %n) : memref<?x?xf32>
  %c = memref.alloc(%m, %n) : memref<?x?xf32>
  func.call @fill(%a, %c1) : (memref<?x?xf32>, index) -> ()
  func.call @fill(%b, %c2) : (memref<?x?xf32>, index) -> ()
  func.call @transpose(%a, %at) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  func.call @transpose(%b, %bt) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  func.call @fill(%r, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @reference(%a, %b, %r) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()

  func.call @fill(%c, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @gemm_tl(%at, %b, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %e0 = func.call @max_error(%c, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> f32
  func.call @fill(%c, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @gemm_tr(%a, %bt, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %e1 = func.call @max_error(%c, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  %atb = memref.alloc(%k, %m) : memref<?x?xbf16>
  %btb = memref.alloc(%n, %k) : memref<?x?xbf16>
  func.call @to_bf16(%at, %atb) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
  func.call @to_bf16(%bt, %btb) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
  func.call @fill(%c, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @gemm_tt(%atb, %btb, %c) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xf32>) -> ()
  %e2 = func.call @max_error(%c, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  // Strided A, B and C.
  %k2 = arith.addi %k, %k : index
  %n2 = arith.addi %n, %n : index
  %aw = memref.alloc(%m, %k2) : memref<?x?xf32>
  %bw = memref.alloc(%k, %n2) : memref<?x?xf32>
  %cw = memref.alloc(%m, %n2) : memref<?x?xf32>
  func.call @fill(%c, %c3) : (memref<?x?xf32>, index) -> ()
  %as = func.call @spread(%a, %aw) : (memref<?x?xf32>, memref<?x?xf32>) -> memref<?x?xf32, #strided>
  %bs = func.call @spread(%b, %bw) : (memref<?x?xf32>, memref<?x?xf32>) -> memref<?x?xf32, #strided>
  %cs = func.call @spread(%c, %cw) : (memref<?x?xf32>, memref<?x?xf32>) -> memref<?x?xf32, #strided>
  func.call @gemm_strided(%as, %bs, %cs) : (memref<?x?xf32, #strided>, memref<?x?xf32, #strided>, memref<?x?xf32, #strided>) -> ()
  memref.copy %cs, %c : memref<?x?xf32, #strided> to memref<?x?xf32>
  %e3 = func.call @max_error(%c, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  %w0 = func.call @worse(%e0, %e1) : (f32, f32) -> f32
  %w1 = func.call @worse(%w0, %e2) : (f32, f32) -> f32
  %w2 = func.call @worse(%w1, %e3) : (f32, f32) -> f32
  return %w2 : f32
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %count = arith.constant 11 : index
  %zero = arith.constant 0.0 : f32
  %tolerance = arith.constant 1.0e-6 : f32
  %shapes = memref.get_global @shapes : memref<11x3xi64>
  %worst = scf.for %s = %c0 to %count step %c1 iter_args(%w = %zero) -> f32 {
    %m64 = memref.load %shapes[%s, %c0] : memref<11x3xi64>
    %n64 = memref.load %shapes[%s, %c1] : memref<11x3xi64>
    %k64 = memref.load %shapes[%s, %c2] : memref<11x3xi64>
    %m = arith.index_cast %m64 : i64 to index
    %n = arith.index_cast %n64 : i64 to index
    %k = arith.index_cast %k64 : i64 to index
    %e = func.call @check(%m, %n, %k) : (index, index, index) -> f32
    func.call @print_case(%m, %n, %k, %e) : (index, index, index, f32) -> ()
    %next = func.call @worse(%w, %e) : (f32, f32) -> f32
    scf.yield %next : f32
  }
  func.call @report(%worst, %tolerance) : (f32, f32) -> ()
  return
}
