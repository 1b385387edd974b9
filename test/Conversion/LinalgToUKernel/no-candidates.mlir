// RUN: quilt-opt %s -verify-diagnostics --ukernel-attach-target="target=tensor-only target-file=%S/Inputs/tensor-only.db" --convert-linalg-to-ukernel | FileCheck %s --check-prefix=KEPT
// A target with no instruction for f32 gets no dispatch: the matmul stays.
// KEPT-LABEL: func.func @no_candidates
// KEPT: linalg.matmul
func.func @no_candidates(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-warning @below {{no micro-kernel candidate for matmul on 'f32'; left as it is}}
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A GPU without an f64 rate (no f64_tflops) gets no f64 candidates.
// KEPT-LABEL: func.func @no_f64_rate
// KEPT: linalg.matmul
func.func @no_f64_rate(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>) -> tensor<?x?xf64> {
  // expected-warning @below {{no micro-kernel candidate for matmul on 'f64'; left as it is}}
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf64>, tensor<?x?xf64>) outs(%c : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %0 : tensor<?x?xf64>
}
