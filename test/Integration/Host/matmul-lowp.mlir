// f16 and bf16 inputs (converted to f32 while packing), with an f32
// accumulator and with an accumulator of the input type (the kernel keeps
// an f32 copy of C and rounds once at the end, like the reference).
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
// REDEFINE: %{options} = target=host max-candidates=3 policy=fixed=2
// RUN: %{run}

// CHECK-COUNT-11: case
// CHECK: max error
// CHECK-NEXT: PASS

memref.global "private" constant @shapes : memref<11x3xi64> = dense<[
  [0, 3, 3], [3, 3, 0], [1, 1, 1], [2, 19, 3], [23, 5, 29], [64, 48, 32],
  [97, 101, 103], [130, 33, 257], [7, 300, 300], [1030, 17, 9], [2, 4099, 3]]>

func.func @gemm_f16_f32(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
  return
}
func.func @gemm_bf16_f32(%a: memref<?x?xbf16>, %b: memref<?x?xbf16>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xbf16>, memref<?x?xbf16>) outs(%c : memref<?x?xf32>)
  return
}
func.func @gemm_f16(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) {
  linalg.matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf16>)
  return
}
func.func @gemm_bf16(%a: memref<?x?xbf16>, %b: memref<?x?xbf16>, %c: memref<?x?xbf16>) {
  linalg.matmul ins(%a, %b : memref<?x?xbf16>, memref<?x?xbf16>) outs(%c : memref<?x?xbf16>)
  return
}

// Runs the four variants on one shape; returns the largest error.
func.func @check(%m: index, %n: index, %k: index) -> f32 {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %a = memref.alloc(%m, %k) : memref<?x?xf32>
  %b = memref.alloc(%k, %n) : memref<?x?xf32>
  %r = memref.alloc(%m, %n) : memref<?x?xf32>
  func.call @fill(%a, %c1) : (memref<?x?xf32>, index) -> ()
  func.call @fill(%b, %c2) : (memref<?x?xf32>, index) -> ()
  func.call @fill(%r, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @reference(%a, %b, %r) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()

  %ah = memref.alloc(%m, %k) : memref<?x?xf16>
  %bh = memref.alloc(%k, %n) : memref<?x?xf16>
  %ab = memref.alloc(%m, %k) : memref<?x?xbf16>
  %bb = memref.alloc(%k, %n) : memref<?x?xbf16>
  func.call @to_f16(%a, %ah) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
  func.call @to_f16(%b, %bh) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
  func.call @to_bf16(%a, %ab) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
  func.call @to_bf16(%b, %bb) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()

  // f32 accumulators.
  %c = memref.alloc(%m, %n) : memref<?x?xf32>
  func.call @fill(%c, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @gemm_f16_f32(%ah, %bh, %c) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
  %e0 = func.call @max_error(%c, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> f32
  func.call @fill(%c, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @gemm_bf16_f32(%ab, %bb, %c) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xf32>) -> ()
  %e1 = func.call @max_error(%c, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  // f16 accumulator, against the reference rounded to f16.
  %ch = memref.alloc(%m, %n) : memref<?x?xf16>
  %rh = memref.alloc(%m, %n) : memref<?x?xf16>
  %init = memref.alloc(%m, %n) : memref<?x?xf32>
  func.call @fill(%init, %c3) : (memref<?x?xf32>, index) -> ()
  func.call @to_f16(%init, %ch) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
  func.call @gemm_f16(%ah, %bh, %ch) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
  func.call @to_f16(%r, %rh) : (memref<?x?xf32>, memref<?x?xf16>) -> ()
  %got = memref.alloc(%m, %n) : memref<?x?xf32>
  %want = memref.alloc(%m, %n) : memref<?x?xf32>
  func.call @from_f16(%ch, %got) : (memref<?x?xf16>, memref<?x?xf32>) -> ()
  func.call @from_f16(%rh, %want) : (memref<?x?xf16>, memref<?x?xf32>) -> ()
  %e2 = func.call @max_error(%got, %want) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

  // bf16 accumulator.
  %cb = memref.alloc(%m, %n) : memref<?x?xbf16>
  %rb = memref.alloc(%m, %n) : memref<?x?xbf16>
  func.call @to_bf16(%init, %cb) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
  func.call @gemm_bf16(%ab, %bb, %cb) : (memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xbf16>) -> ()
  func.call @to_bf16(%r, %rb) : (memref<?x?xf32>, memref<?x?xbf16>) -> ()
  func.call @from_bf16(%cb, %got) : (memref<?x?xbf16>, memref<?x?xf32>) -> ()
  func.call @from_bf16(%rb, %want) : (memref<?x?xbf16>, memref<?x?xf32>) -> ()
  %e3 = func.call @max_error(%got, %want) : (memref<?x?xf32>, memref<?x?xf32>) -> f32

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
