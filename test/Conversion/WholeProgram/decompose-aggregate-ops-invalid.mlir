// RUN: quilt-opt %s -split-input-file --quilt-decompose-aggregate-ops -verify-diagnostics

// Upstream decomposes softmax on tensors only.
func.func @on_buffers(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  // expected-error @+1 {{'linalg.softmax' on buffers cannot be decomposed; write it on tensors}}
  linalg.softmax dimension(1) ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>)
  return
}

// -----

// Upstream's lowering of a pack needs static inner tiles.
func.func @pack_dynamic_tile(%x: tensor<?x?xf32>, %p: tensor<?x?x?x8xf32>, %t: index) -> tensor<?x?x?x8xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'linalg.pack' cannot be lowered to a pad, reshape and transpose (static inner tiles only)}}
  %packed = linalg.pack %x padding_value(%zero : f32) inner_dims_pos = [0, 1] inner_tiles = [%t, 8] into %p : tensor<?x?xf32> -> tensor<?x?x?x8xf32>
  return %packed : tensor<?x?x?x8xf32>
}
