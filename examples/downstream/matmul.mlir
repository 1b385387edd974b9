// The downstream compiler's input: a matmul whose sizes are known only at
// run time.
//   downstream-opt matmul.mlir --downstream-lower-matmul=target=h100
//   downstream-opt matmul.mlir --downstream-lower-matmul="target=host lower-to-llvm=true"
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>,
                  %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
