// RUN: quilt-opt %s -split-input-file -verify-diagnostics --convert-linalg-to-ukernel
// RUN: not quilt-opt %s -split-input-file --ukernel-attach-target=target=host --convert-linalg-to-ukernel="policy=fastest" 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not quilt-opt %s -split-input-file --ukernel-attach-target=target=host --convert-linalg-to-ukernel="policy=fixed=99" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not quilt-opt %s -split-input-file --ukernel-attach-target=target=host --convert-linalg-to-ukernel="policy=fixed=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// POLICY: error: unknown policy 'fastest' (expected cost_model, pad, patch or fixed=<index>)
// RANGE: error: policy fixed=99 is out of range: there are {{[0-9]+}} candidates
// NEGATIVE: error: policy 'fixed=-1' needs a non-negative candidate index
// RUN: not quilt-opt %s -split-input-file --ukernel-attach-target=target=host --convert-linalg-to-ukernel="residual-model=%t.missing" 2>&1 | FileCheck %s --check-prefix=NO-MODEL
// NO-MODEL: error: residual-model: {{.*}}.missing: cannot read the residual model
// RUN: printf 'quilt-residual-model 1\nfeatures 40\nfeature log2_x\n' > %t.stale
// RUN: not quilt-opt %s -split-input-file --ukernel-attach-target=target=host --convert-linalg-to-ukernel="residual-model=%t.stale" 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: error: residual-model: {{.*}}.stale:3: feature 0 is 'log2_x'; this Quilt computes 'log2_b' there: retrain the model

func.func @no_target(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @below {{no target to generate micro-kernels for: run ukernel-attach-target first}}
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

