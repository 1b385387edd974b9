"""Shared inputs for the quilt module's tests.

Run with the interpreter the module was built for and PYTHONPATH pointing
at the build's python/ directory (test/Python/pytest.test does this).
"""

import math
import os
import pathlib

import numpy as np
import pytest

import quilt

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]

# A dynamic matmul on memrefs: C += A * B, written in place.
MATMUL_MEMREF = """
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>)
                outs(%c : memref<?x?xf32>)
  return
}
"""

# The same on tensors, returning a new tensor.
MATMUL_TENSOR = """
func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""

# A matmul with a folded fill and a fused bias and exact (erf) GELU.
BIAS_GELU = """
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @bias_gelu(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>,
                     %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                      outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %bias: f32, %out: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.707106781186547524 : f32
    %s = arith.addf %v, %bias : f32
    %t = arith.mulf %s, %rsqrt2 : f32
    %erf = math.erf %t : f32
    %p = arith.addf %erf, %one : f32
    %hs = arith.mulf %s, %half : f32
    %g = arith.mulf %hs, %p : f32
    linalg.yield %g : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
"""


def bias_gelu_reference(x, w, b):
    """BIAS_GELU in double precision."""
    s = x.astype(np.float64) @ w.astype(np.float64) + b
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * s * (1.0 + erf(s / math.sqrt(2.0)))


# Shapes (M, N, K): empty dimensions, ones, primes, sizes no tile divides.
SHAPES = [(0, 3, 5), (4, 0, 3), (3, 5, 0), (1, 1, 1), (2, 3, 5), (7, 13, 11),
          (31, 37, 41), (97, 101, 103), (130, 33, 257)]


def random_matrix(rng, rows, cols, dtype=np.float32):
    return rng.uniform(-1.0, 1.0, size=(rows, cols)).astype(dtype)


@pytest.fixture
def rng():
    return np.random.default_rng(20240601)


@pytest.fixture(scope="session")
def matmul_memref_library(tmp_path_factory):
    path = tmp_path_factory.mktemp("lib") / "matmul.so"
    return quilt.compile(MATMUL_MEMREF, emit="shared", output=str(path))


def tools_dir():
    """Quilt's built tools, when the test runner says where they are."""
    path = os.environ.get("QUILT_TOOLS_DIR")
    return pathlib.Path(path) if path else None
