// Problems the host kernels multiply in place (no packing) and their
// neighbours that are packed, with one small candidate so that both sides
// of the boundary are reachable: tile 12x32x8, register block 4x16, 8
// lanes. A region is read in place when rows <= 12, cols <= 32 and
// rows*K + K*cols <= 12*8 + 8*32 = 352 (K > 0); K may then exceed the
// candidate's K block. Row-major A, A stored transposed (read in place
// too), f16 operands (always packed: the same shapes through the other
// path), and a fused bias + ReLU, each against the plain-loop reference.
//
// DEFINE: %{run} = cat %s %S/Inputs/gemm-helpers.mlir \
// DEFINE:   | quilt-opt --quilt-lower-to-host="target=host-avx2" \
// DEFINE:   | mlir-runner -e main -entry-point-result=void \
// DEFINE:       -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%quilt_runtime \
// DEFINE:   | FileCheck %s
//
// RUN: %{run}

// CHECK-COUNT-14: case
// CHECK: max error
// CHECK-NEXT: PASS

#small = #ukernel.config<tile = 12x32x8, threads = 1, warps = 1x1, thread_tile = 4x16, vector_width = 8, stages = 1, instruction = cpu_fma, boundary = mask>

// M, N, K; the comment says which path each takes.
memref.global "private" constant @shapes : memref<14x3xi64> = dense<[
  [1, 1, 1],      // in place, one lane of one row
  [3, 5, 40],     // in place, K = 5 K blocks (footprint 320)
  [12, 32, 8],    // in place, exactly at the limits (352)
  [1, 31, 11],    // in place at the limit (352), a masked second vector
  [7, 17, 11],    // in place, row and column edges (4 + 3 rows, 16 + 1 lanes)
  [12, 32, 9],    // packed: footprint 396
  [11, 29, 10],   // packed: footprint 400
  [13, 7, 5],     // packed: M > 12
  [5, 33, 3],     // packed: N > 32
  [29, 67, 13],   // packed, several blocks
  [0, 5, 7],      // empty
  [5, 0, 7],      // empty
  [5, 7, 0],      // K = 0: only the epilogue
  [2, 3, 57]]>    // in place, K = 57 (prime), footprint 285

func.func @gemm(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    candidates [#small]
  return
}

func.func @gemm_ta(%at: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul transpose_lhs ins(%at, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    candidates [#small]
  return
}

func.func @gemm_f16(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
    candidates [#small]
  return
}

func.func @gemm_bias_relu(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %bias: memref<?xf32>) {
  ukernel.dispatch matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
    bias(%bias : memref<?xf32>) epilogue [bias_add, relu]
    candidates [#small]
  return
}

// r[i, j] = max(r[i, j] + bias[j], 0).
func.func @bias_relu(%r: memref<?x?xf32>, %bias: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %r, %c0 : memref<?x?xf32>
  %n = memref.dim %r, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %m step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %x = memref.load %r[%i, %j] : memref<?x?xf32>
      %bj = memref.load %bias[%j] : memref<?xf32>
      %s = arith.addf %x, %bj : f32
      %y = arith.maximumf %s, %zero : f32
      memref.store %y, %r[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

func.func @check(%m: index, %n: index, %k: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc(%m, %k) : memref<?x?xf32>
  %at = memref.alloc(%k, %m) : memref<?x?xf32>
  %b = memref.alloc(%k, %n) : memref<?x?xf32>
  %r = memref.alloc(%m, %n) : memref<?x?xf32>
  %c = memref.alloc(%m, %n) : memref<?x?xf32>
  func.call @fill(%a, %c1) : (memref<?x?xf32>, index) -> ()
  func.call @fill(%b, %c2) : (memref<?x?xf32>, index) -> ()
  func.call @transpose(%a, %at) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  func.call @fill(%r, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @reference(%a, %b, %r) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()

  func.call @fill(%c, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @gemm(%a, %b, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %e0 = func.call @max_error(%c, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  func.call @fill(%c, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @gemm_ta(%at, %b, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %e1 = func.call @max_error(%c, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  %ah = memref.alloc(%m, %k) : memref<?x?xf16>
  %bh = memref.alloc(%k, %n) : memref<?x?xf16>
  func.call @to_f16(%a, %ah) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
  func.call @to_f16(%b, %bh) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
  func.call @fill(%c, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @gemm_f16(%ah, %bh, %c) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
  %e2 = func.call @max_error(%c, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  // The bias: row 0 of a filled 1 x N matrix.
  %bias2 = memref.alloc(%c1, %n) : memref<?x?xf32>
  func.call @fill(%bias2, %c4) : (memref<?x?xf32>, index) -> ()
  %bias = memref.collapse_shape %bias2 [[0, 1]] : memref<?x?xf32> into memref<?xf32>
  func.call @bias_relu(%r, %bias) : (memref<?x?xf32>, memref<?xf32>) -> ()
  func.call @fill(%c, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @gemm_bias_relu(%a, %b, %c, %bias) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, memref<?xf32>) -> ()
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
  %count = arith.constant 14 : index
  %zero = arith.constant 0.0 : f32
  %tolerance = arith.constant 1.0e-6 : f32
  %shapes = memref.get_global @shapes : memref<14x3xi64>
  %worst = scf.for %s = %c0 to %count step %c1 iter_args(%w = %zero) -> f32 {
    %m64 = memref.load %shapes[%s, %c0] : memref<14x3xi64>
    %n64 = memref.load %shapes[%s, %c1] : memref<14x3xi64>
    %k64 = memref.load %shapes[%s, %c2] : memref<14x3xi64>
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
