// Dynamic-shape contractions the emulator tests run: a matmul per element
// type (f32 accumulation, f64 for f64) and a batch matmul.
func.func @mm_f16(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
  return
}

func.func @mm_bf16(%a: memref<?x?xbf16>, %b: memref<?x?xbf16>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xbf16>, memref<?x?xbf16>) outs(%c : memref<?x?xf32>)
  return
}

func.func @mm_f32(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

func.func @mm_f64(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>) {
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>) outs(%c : memref<?x?xf64>)
  return
}

func.func @bmm_f16(%a: memref<?x?x?xf16>, %b: memref<?x?x?xf16>, %c: memref<?x?x?xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<?x?x?xf16>, memref<?x?x?xf16>) outs(%c : memref<?x?x?xf32>)
  return
}
