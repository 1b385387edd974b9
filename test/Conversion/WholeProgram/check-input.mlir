// RUN: quilt-opt %s --quilt-check-input | FileCheck %s

// What the pipelines compile passes through unchanged: f64, f32, f16,
// bf16 and integer products, complex arithmetic, buffers in the default
// memory space; and the device code a program brings in a gpu.module
// (workgroup memory, tf32) is not looked at.
// CHECK-LABEL: func.func @supported
// CHECK: linalg.matmul
// CHECK: linalg.matmul
// CHECK: complex.mul
// CHECK-LABEL: gpu.module @device
// CHECK: memref<4xf32, 3>
module attributes {gpu.container_module} {
  func.func @supported(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>, %c: tensor<?x?xf32>,
                       %i: memref<?x?xi8>, %j: memref<?x?xi8>, %k: memref<?x?xi32>,
                       %x: complex<f64>) -> (tensor<?x?xf32>, complex<f64>) {
    %r = linalg.matmul ins(%a, %b : tensor<?x?xbf16>, tensor<?x?xbf16>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
    linalg.matmul ins(%i, %j : memref<?x?xi8>, memref<?x?xi8>) outs(%k : memref<?x?xi32>)
    %s = complex.mul %x, %x : complex<f64>
    return %r, %s : tensor<?x?xf32>, complex<f64>
  }

  gpu.module @device {
    gpu.func @k(%t: tf32) workgroup(%w: memref<4xf32, 3>) kernel {
      gpu.return
    }
  }
}
