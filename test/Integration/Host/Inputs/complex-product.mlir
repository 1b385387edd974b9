// A complex matmul (complex<f32>), for mlir-runner: not one of Quilt's
// kernels (it keeps the upstream lowering), but it compiles for the host.
// A[i][k] = (1 + i, k) and B[k][j] = (j, -k) as (re, im), M = N = 2, K = 3.
func.func private @printMemrefC32(memref<*xcomplex<f32>>)

func.func @product(%a: memref<?x?xcomplex<f32>>, %b: memref<?x?xcomplex<f32>>,
                   %c: memref<?x?xcomplex<f32>>) {
  linalg.matmul ins(%a, %b : memref<?x?xcomplex<f32>>, memref<?x?xcomplex<f32>>)
                outs(%c : memref<?x?xcomplex<f32>>)
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = complex.constant [0.0 : f32, 0.0 : f32] : complex<f32>
  %a = memref.alloc(%c2, %c3) : memref<?x?xcomplex<f32>>
  %b = memref.alloc(%c3, %c2) : memref<?x?xcomplex<f32>>
  %c = memref.alloc(%c2, %c2) : memref<?x?xcomplex<f32>>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %k = %c0 to %c3 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %ki = arith.index_cast %k : index to i32
      %fi = arith.sitofp %ii : i32 to f32
      %fk = arith.sitofp %ki : i32 to f32
      %one = arith.constant 1.0 : f32
      %re = arith.addf %fi, %one : f32
      %v = complex.create %re, %fk : complex<f32>
      memref.store %v, %a[%i, %k] : memref<?x?xcomplex<f32>>
    }
  }
  scf.for %k = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      %ji = arith.index_cast %j : index to i32
      %ki = arith.index_cast %k : index to i32
      %fj = arith.sitofp %ji : i32 to f32
      %fk = arith.sitofp %ki : i32 to f32
      %im = arith.negf %fk : f32
      %v = complex.create %fj, %im : complex<f32>
      memref.store %v, %b[%k, %j] : memref<?x?xcomplex<f32>>
    }
  }
  linalg.fill ins(%zero : complex<f32>) outs(%c : memref<?x?xcomplex<f32>>)
  call @product(%a, %b, %c) : (memref<?x?xcomplex<f32>>, memref<?x?xcomplex<f32>>, memref<?x?xcomplex<f32>>) -> ()
  %u = memref.cast %c : memref<?x?xcomplex<f32>> to memref<*xcomplex<f32>>
  call @printMemrefC32(%u) : (memref<*xcomplex<f32>>) -> ()
  memref.dealloc %a : memref<?x?xcomplex<f32>>
  memref.dealloc %b : memref<?x?xcomplex<f32>>
  memref.dealloc %c : memref<?x?xcomplex<f32>>
  return
}
