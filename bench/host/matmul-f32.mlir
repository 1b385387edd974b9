// Single-thread f32 GFLOP/s of quilt-lower-to-host's code on a square and
// two BERT-base shapes (C += A*B, row-major memrefs). Not a test: timings
// depend on the machine and its load. Best of 5 timed runs per shape.
//
//   quilt-opt bench/host/matmul-f32.mlir --quilt-lower-to-host=target=host \
//     | mlir-runner -O3 -e main -entry-point-result=void \
//         -shared-libs=$LLVM/lib/libmlir_c_runner_utils.so,$LLVM/lib/libmlir_runner_utils.so,build/lib/libquilt_runtime.so

func.func private @rtclock() -> f64

func.func @gemm(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// Best GFLOP/s over `trials` timings of `reps` calls each.
func.func @bench(%m: index, %n: index, %k: index, %reps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %trials = arith.constant 5 : index
  %half = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f64
  %a = memref.alloc(%m, %k) : memref<?x?xf32>
  %b = memref.alloc(%k, %n) : memref<?x?xf32>
  %c = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.fill ins(%half : f32) outs(%a : memref<?x?xf32>)
  linalg.fill ins(%half : f32) outs(%b : memref<?x?xf32>)
  linalg.fill ins(%half : f32) outs(%c : memref<?x?xf32>)
  // Warm up: the first call also prepares the selection table.
  func.call @gemm(%a, %b, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %mi = arith.index_cast %m : index to i64
  %ni = arith.index_cast %n : index to i64
  %ki = arith.index_cast %k : index to i64
  %ri = arith.index_cast %reps : index to i64
  %mn = arith.muli %mi, %ni : i64
  %mnk = arith.muli %mn, %ki : i64
  %flops = arith.muli %mnk, %ri : i64
  %flopsf = arith.sitofp %flops : i64 to f64
  %scale = arith.constant 2.0e-9 : f64
  %gflop = arith.mulf %flopsf, %scale : f64
  %best = scf.for %t = %c0 to %trials step %c1 iter_args(%bestSoFar = %zero) -> f64 {
    %t0 = func.call @rtclock() : () -> f64
    scf.for %i = %c0 to %reps step %c1 {
      func.call @gemm(%a, %b, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    }
    %t1 = func.call @rtclock() : () -> f64
    %dt = arith.subf %t1, %t0 : f64
    %rate = arith.divf %gflop, %dt : f64
    %better = arith.maximumf %bestSoFar, %rate : f64
    scf.yield %better : f64
  }
  vector.print %m : index
  vector.print %n : index
  vector.print %k : index
  vector.print %best : f64
  return
}

func.func @main() {
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  %c384 = arith.constant 384 : index
  %c768 = arith.constant 768 : index
  %c1024 = arith.constant 1024 : index
  %c3072 = arith.constant 3072 : index
  vector.print str "M N K GFLOP/s\n"
  func.call @bench(%c1024, %c1024, %c1024, %c3) : (index, index, index, index) -> ()
  func.call @bench(%c384, %c768, %c768, %c10) : (index, index, index, index) -> ()
  func.call @bench(%c384, %c3072, %c768, %c3) : (index, index, index, index) -> ()
  return
}
