// RUN: quilt-opt %s -split-input-file --quilt-check-input -verify-diagnostics

module {
  // expected-error @+1 {{nested 'builtin.module' is not lowered: Quilt's pipelines compile the ops of the top-level module}}
  module @inner {
    func.func @f() {
      return
    }
  }
}

// -----

func.func @tf32(%a: tensor<?x?xtf32>, %b: tensor<?x?xtf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'tf32' is a tensor-core storage format no lowering computes in; compute in f32}}
  %r = linalg.matmul ins(%a, %b : tensor<?x?xtf32>, tensor<?x?xtf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

func.func @f8(%a: tensor<?x?xf8E4M3FN>, %b: tensor<?x?xf8E4M3FN>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{8-bit and smaller floats such as 'f8E4M3FN' are not supported: Quilt has no kernels for them and the upstream CPU and GPU lowerings cannot convert them}}
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

func.func @f4(%x: vector<4xf4E2M1FN>) -> vector<4xf32> {
  // expected-error @+1 {{8-bit and smaller floats such as 'f4E2M1FN' are not supported}}
  %y = arith.extf %x : vector<4xf4E2M1FN> to vector<4xf32>
  return %y : vector<4xf32>
}

// -----

// expected-error @+1 {{takes or returns 'memref<?x?xf32, 3>', a memref outside the default memory space: Quilt's functions take and return buffers in host memory (or a GPU's global memory)}}
func.func @workgroup(%a: memref<?x?xf32, 3>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  return
}
