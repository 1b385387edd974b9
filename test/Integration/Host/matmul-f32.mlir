// f32 matmul on memrefs through quilt-lower-to-host, against the plain-loop
// reference, for dynamic shapes with zeros, ones, primes and sizes that are
// not multiples of any tile, under every selection policy.
//
// DEFINE: %{options} = target=host
// DEFINE: %{run} = cat %s %S/Inputs/gemm-helpers.mlir \
// DEFINE:   | quilt-opt --quilt-lower-to-host="%{options}" \
// DEFINE:   | mlir-runner -e main -entry-point-result=void \
// DEFINE:       -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%quilt_runtime \
// DEFINE:   | FileCheck %s
//
// RUN: %{run}
// REDEFINE: %{options} = target=host policy=pad
// RUN: %{run}
// REDEFINE: %{options} = target=host policy=patch
// RUN: %{run}
// REDEFINE: %{options} = target=host max-candidates=4 policy=fixed=0
// RUN: %{run}
// REDEFINE: %{options} = target=host max-candidates=4 policy=fixed=3
// RUN: %{run}
// 8-lane (AVX2) micro-kernels, which any x86-64-v3 machine runs.
// REDEFINE: %{options} = target=host-avx2
// RUN: %{run}

// CHECK-COUNT-22: case
// CHECK: max error
// CHECK-NEXT: PASS

// M, N, K. Sizes past the default candidates' cache blocks (M > 1024,
// N > 4096, K > 256) run several blocks; the last four, up to 16 rows and
// too large for the small-problem path, the skinny one (B read in place,
// K blocks of 8 rows, a K that is not a multiple of 8).
memref.global "private" constant @shapes : memref<22x3xi64> = dense<[
  [0, 5, 7], [5, 0, 7], [5, 7, 0], [1, 1, 1], [1, 17, 1], [17, 1, 13],
  [2, 3, 5], [7, 11, 13], [31, 67, 5], [97, 101, 103], [16, 16, 16],
  [48, 64, 256], [100, 300, 257], [257, 33, 300], [1031, 19, 7],
  [3, 4100, 5], [129, 513, 65], [384, 77, 31],
  [13, 600, 301], [1, 5000, 97], [16, 1030, 211], [5, 65, 2049]]>

func.func @gemm(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %count = arith.constant 22 : index
  %zero = arith.constant 0.0 : f32
  %tolerance = arith.constant 1.0e-6 : f32
  %shapes = memref.get_global @shapes : memref<22x3xi64>
  %worst = scf.for %s = %c0 to %count step %c1 iter_args(%w = %zero) -> f32 {
    %m64 = memref.load %shapes[%s, %c0] : memref<22x3xi64>
    %n64 = memref.load %shapes[%s, %c1] : memref<22x3xi64>
    %k64 = memref.load %shapes[%s, %c2] : memref<22x3xi64>
    %m = arith.index_cast %m64 : i64 to index
    %n = arith.index_cast %n64 : i64 to index
    %k = arith.index_cast %k64 : i64 to index
    %a = memref.alloc(%m, %k) : memref<?x?xf32>
    %b = memref.alloc(%k, %n) : memref<?x?xf32>
    %c = memref.alloc(%m, %n) : memref<?x?xf32>
    %r = memref.alloc(%m, %n) : memref<?x?xf32>
    func.call @fill(%a, %c1) : (memref<?x?xf32>, index) -> ()
    func.call @fill(%b, %c2) : (memref<?x?xf32>, index) -> ()
    func.call @fill(%c, %c3) : (memref<?x?xf32>, index) -> ()
    func.call @fill(%r, %c3) : (memref<?x?xf32>, index) -> ()
    func.call @gemm(%a, %b, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    func.call @reference(%a, %b, %r) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    %e = func.call @max_error(%c, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> f32
    func.call @print_case(%m, %n, %k, %e) : (index, index, index, f32) -> ()
    %next = func.call @worse(%w, %e) : (f32, f32) -> f32
    scf.yield %next : f32
  }
  func.call @report(%worst, %tolerance) : (f32, f32) -> ()
  return
}
