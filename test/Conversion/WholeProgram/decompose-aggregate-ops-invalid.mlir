// RUN: quilt-opt %s -split-input-file --quilt-decompose-aggregate-ops -verify-diagnostics

// Upstream decomposes softmax on tensors only.
func.func @on_buffers(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  // expected-error @+1 {{'linalg.softmax' on buffers cannot be decomposed; write it on tensors}}
  linalg.softmax dimension(1) ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>)
  return
}
