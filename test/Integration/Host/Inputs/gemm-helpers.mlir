// Helpers shared by the host execution tests, appended to each test's input
// (`cat %s %S/Inputs/gemm-helpers.mlir | quilt-opt ...`). Plain loops only:
// nothing here is a linalg op, so the pipeline's front end leaves it alone
// and the reference stays independent of the code under test.
//
// Test values lie on a 1/8 grid in [-1.375, 1.375]: exact in f16 and bf16,
// and sums of their products are exact in f32 for the sizes tested, so the
// generated kernels must match the reference to the last bit whatever the
// summation order (gelu aside).

// Deterministic values, different per seed.
func.func @fill(%x: memref<?x?xf32>, %seed: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c23 = arith.constant 23 : index
  %c37 = arith.constant 37 : index
  %c17 = arith.constant 17 : index
  %c11 = arith.constant 11 : index
  %eighth = arith.constant 0.125 : f32
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %i37 = arith.muli %i, %c37 : index
      %j17 = arith.muli %j, %c17 : index
      %s11 = arith.muli %seed, %c11 : index
      %t0 = arith.addi %i37, %j17 : index
      %t1 = arith.addi %t0, %s11 : index
      %r = arith.remui %t1, %c23 : index
      %centered = arith.subi %r, %c11 : index
      %int = arith.index_cast %centered : index to i64
      %f = arith.sitofp %int : i64 to f32
      %v = arith.mulf %f, %eighth : f32
      memref.store %v, %x[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// C += A * B.
func.func @reference(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %c, %c0 : memref<?x?xf32>
  %n = memref.dim %c, %c1 : memref<?x?xf32>
  %k = memref.dim %a, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %m step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %init = memref.load %c[%i, %j] : memref<?x?xf32>
      %sum = scf.for %p = %c0 to %k step %c1 iter_args(%acc = %init) -> f32 {
        %x = memref.load %a[%i, %p] : memref<?x?xf32>
        %y = memref.load %b[%p, %j] : memref<?x?xf32>
        %xy = arith.mulf %x, %y : f32
        %next = arith.addf %acc, %xy : f32
        scf.yield %next : f32
      }
      memref.store %sum, %c[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// dst = transpose(src).
func.func @transpose(%src: memref<?x?xf32>, %dst: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %src, %c0 : memref<?x?xf32>
  %cols = memref.dim %src, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %v = memref.load %src[%i, %j] : memref<?x?xf32>
      memref.store %v, %dst[%j, %i] : memref<?x?xf32>
    }
  }
  return
}

// Element type conversions, by rounding (truncf) and exactly (extf).
func.func @to_f16(%src: memref<?x?xf32>, %dst: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %src, %c0 : memref<?x?xf32>
  %cols = memref.dim %src, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %v = memref.load %src[%i, %j] : memref<?x?xf32>
      %t = arith.truncf %v : f32 to f16
      memref.store %t, %dst[%i, %j] : memref<?x?xf16>
    }
  }
  return
}

func.func @from_f16(%src: memref<?x?xf16>, %dst: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %src, %c0 : memref<?x?xf16>
  %cols = memref.dim %src, %c1 : memref<?x?xf16>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %v = memref.load %src[%i, %j] : memref<?x?xf16>
      %t = arith.extf %v : f16 to f32
      memref.store %t, %dst[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

func.func @to_bf16(%src: memref<?x?xf32>, %dst: memref<?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %src, %c0 : memref<?x?xf32>
  %cols = memref.dim %src, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %v = memref.load %src[%i, %j] : memref<?x?xf32>
      %t = arith.truncf %v : f32 to bf16
      memref.store %t, %dst[%i, %j] : memref<?x?xbf16>
    }
  }
  return
}

func.func @from_bf16(%src: memref<?x?xbf16>, %dst: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %src, %c0 : memref<?x?xbf16>
  %cols = memref.dim %src, %c1 : memref<?x?xbf16>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %v = memref.load %src[%i, %j] : memref<?x?xbf16>
      %t = arith.extf %v : bf16 to f32
      memref.store %t, %dst[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// The larger error, where a NaN counts as the largest.
func.func @worse(%a: f32, %b: f32) -> f32 {
  %nan = arith.cmpf uno, %b, %b : f32
  %m = arith.maximumf %a, %b : f32
  %r = arith.select %nan, %b, %m : f32
  return %r : f32
}

// max |x - y| / (1 + |y|)
func.func @max_error(%x: memref<?x?xf32>, %y: memref<?x?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  %worst = scf.for %i = %c0 to %rows step %c1 iter_args(%w0 = %zero) -> f32 {
    %w1 = scf.for %j = %c0 to %cols step %c1 iter_args(%w = %w0) -> f32 {
      %a = memref.load %x[%i, %j] : memref<?x?xf32>
      %b = memref.load %y[%i, %j] : memref<?x?xf32>
      %d = arith.subf %a, %b : f32
      %ad = math.absf %d : f32
      %ab = math.absf %b : f32
      %den = arith.addf %ab, %one : f32
      %e = arith.divf %ad, %den : f32
      %r = func.call @worse(%w, %e) : (f32, f32) -> f32
      scf.yield %r : f32
    }
    scf.yield %w1 : f32
  }
  return %worst : f32
}

func.func @print_case(%m: index, %n: index, %k: index, %error: f32) {
  vector.print str "case "
  vector.print %m : index
  vector.print %n : index
  vector.print %k : index
  vector.print %error : f32
  return
}

// The test's verdict: one line the RUN lines check.
func.func @report(%worst: f32, %tolerance: f32) {
  vector.print str "max error "
  vector.print %worst : f32
  %ok = arith.cmpf olt, %worst, %tolerance : f32
  scf.if %ok {
    vector.print str "PASS\n"
  } else {
    vector.print str "FAIL\n"
  }
  return
}
