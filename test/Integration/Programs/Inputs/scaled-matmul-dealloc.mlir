// A memref program that manages its own buffers: a scaled copy of A in a
// buffer it allocates and frees, multiplied into C.

#id = affine_map<(i, j) -> (i, j)>
func.func @scaled_matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f32
  %m = memref.dim %a, %c0 : memref<?x?xf32>
  %k = memref.dim %a, %c1 : memref<?x?xf32>
  %t = memref.alloc(%m, %k) : memref<?x?xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<?x?xf32>) outs(%t : memref<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %half : f32
    linalg.yield %s : f32
  }
  linalg.matmul ins(%t, %b : memref<?x?xf32>, memref<?x?xf32>)
                outs(%c : memref<?x?xf32>)
  memref.dealloc %t : memref<?x?xf32>
  return
}
