"""quilt.load: compiled host functions called on numpy arrays."""

import re

import numpy as np
import pytest

import quilt
from conftest import (BIAS_GELU, MATMUL_MEMREF, MATMUL_TENSOR, SHAPES,
                      bias_gelu_reference, random_matrix)

LOWP = """
func.func @matmul_f16(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>,
                      %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
func.func @matmul_bf16(%a: memref<?x?xbf16>, %b: memref<?x?xbf16>,
                       %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xbf16>, memref<?x?xbf16>)
                outs(%c : memref<?x?xf32>)
  return
}
"""

# Accumulation is in f32 with a different summation order than numpy's.
TOLERANCE = dict(rtol=1e-4, atol=1e-4)


def to_bf16_bits(x):
    """float32 -> bfloat16 bit patterns (uint16), rounding to nearest even."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = bits + 0x7FFF + ((bits >> 16) & 1)
    return (rounded >> 16).astype(np.uint16)


def from_bf16_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_memref_matmul(matmul_memref_library, rng, m, n, k):
    matmul = quilt.load(matmul_memref_library, "matmul")
    a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
    c = random_matrix(rng, m, n)
    expected = c + a @ b
    assert matmul(a, b, c) is None
    np.testing.assert_allclose(c, expected, **TOLERANCE)


def test_tensor_matmul_from_source(rng):
    matmul = quilt.load(MATMUL_TENSOR, "matmul")
    assert matmul.signature == \
        "(tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>"
    for m, n, k in SHAPES:
        a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
        a_before = a.copy()
        c = matmul(a, b)
        assert c.shape == (m, n) and c.dtype == np.float32
        assert c.flags["C_CONTIGUOUS"] and c.flags["OWNDATA"]
        np.testing.assert_allclose(c, a @ b, **TOLERANCE)
        np.testing.assert_array_equal(a, a_before)


def test_tensor_matmul_from_library_and_signature(tmp_path, rng):
    path = quilt.compile(MATMUL_TENSOR, emit="shared",
                         output=str(tmp_path / "t.so"))
    by_source = quilt.load(path, "matmul", source=MATMUL_TENSOR)
    by_type = quilt.load(
        tmp_path / "t.so", "matmul",
        signature="(tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>")
    a, b = random_matrix(rng, 5, 7), random_matrix(rng, 7, 3)
    np.testing.assert_allclose(by_source(a, b), a @ b, **TOLERANCE)
    np.testing.assert_allclose(by_type(a, b), a @ b, **TOLERANCE)
    # Strided views are tensors' values too.
    wide = random_matrix(rng, 5, 14)
    np.testing.assert_allclose(by_type(wide[:, ::2], b), wide[:, ::2] @ b,
                               **TOLERANCE)


def test_library_signature(tmp_path, rng):
    """A Quilt library says what its functions take: no signature needed, and
    a wrong one is refused before the call instead of corrupting memory."""
    path = quilt.compile(MATMUL_TENSOR, emit="shared",
                         output=str(tmp_path / "t.so"))
    f = quilt.load(path, "matmul")
    assert f.signature == \
        "(tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>"
    a, b = random_matrix(rng, 5, 7), random_matrix(rng, 7, 3)
    np.testing.assert_allclose(f(a, b), a @ b, **TOLERANCE)
    for wrong in ("(tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>",
                  "(tensor<?x?xf32>) -> tensor<?x?xf32>",
                  "(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()",
                  "(tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf32>"):
        with pytest.raises(quilt.Error, match="is not the library's: "
                           r"\(tensor<\?x\?xf32>, tensor<\?x\?xf32>\) -> "
                           r"tensor<\?x\?xf32>"):
            quilt.load(path, "matmul", signature=wrong)


def test_bias_gelu(rng):
    bias_gelu = quilt.load(BIAS_GELU, "bias_gelu")
    for m, n, k in [(0, 8, 4), (1, 1, 1), (17, 61, 33), (80, 96, 64)]:
        x, w = random_matrix(rng, m, k), random_matrix(rng, k, n)
        b = rng.uniform(-1, 1, size=n).astype(np.float32)
        np.testing.assert_allclose(bias_gelu(x, w, b),
                                   bias_gelu_reference(x, w, b), **TOLERANCE)


def test_f16_and_bf16(rng):
    f16 = quilt.load(LOWP, "matmul_f16")
    bf16 = quilt.load(LOWP, "matmul_bf16")
    for m, n, k in [(0, 3, 3), (1, 1, 1), (23, 5, 29), (64, 48, 32)]:
        a = random_matrix(rng, m, k, np.float16)
        b = random_matrix(rng, k, n, np.float16)
        c = random_matrix(rng, m, n)
        expected = c + a.astype(np.float32) @ b.astype(np.float32)
        np.testing.assert_allclose(f16(a, b, c), expected, **TOLERANCE)

        a16, b16 = to_bf16_bits(a), to_bf16_bits(b)
        out = np.zeros((m, n), np.float32)
        bf16(a16, b16, out)
        np.testing.assert_allclose(
            out, from_bf16_bits(a16) @ from_bf16_bits(b16), **TOLERANCE)


# Scalars in and out, and several results, one of them twice.
SCALED = """
func.func @scaled(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %alpha: f32,
                  %count: index, %keep: i1, %shift: i8)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, f32, index, tensor<?x?xf32>, i8) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %p = arith.mulf %v, %alpha : f32
    linalg.yield %p : f32
  } -> tensor<?x?xf32>
  %kept = arith.select %keep, %alpha, %zero : f32
  %next = arith.addi %count, %c1 : index
  %shifted = arith.addi %shift, %shift : i8
  return %s, %c, %kept, %next, %c, %shifted
      : tensor<?x?xf32>, tensor<?x?xf32>, f32, index, tensor<?x?xf32>, i8
}
"""


def test_scalars_and_several_results(rng):
    scaled = quilt.load(SCALED, "scaled")
    for m, n, k in [(0, 3, 2), (1, 1, 1), (7, 13, 11), (40, 33, 65)]:
        a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
        s, c, kept, following, c_again, shifted = scaled(a, b, 2.5, 41,
                                                         True, -3)
        np.testing.assert_allclose(c, a @ b, **TOLERANCE)
        np.testing.assert_allclose(s, 2.5 * (a @ b), **TOLERANCE)
        np.testing.assert_array_equal(c_again, c)
        assert c_again is not c  # each result is the caller's own array
        assert kept == np.float32(2.5) and kept.dtype == np.float32
        assert following == 42 and following.dtype == np.int64
        assert shifted == -6 and shifted.dtype == np.int8
    # numpy scalars and integers for floats are numbers too.
    _, _, kept, _, _, _ = scaled(a, b, np.float64(0.5), np.int32(0), 0, 1)
    assert kept == 0


def test_scalar_argument_errors(rng):
    scaled = quilt.load(SCALED, "scaled")
    a, b = random_matrix(rng, 2, 3), random_matrix(rng, 3, 2)
    with pytest.raises(quilt.Error, match=re.escape(
            "argument 3 (index): expected an integer, got 2.5")):
        scaled(a, b, 1.0, 2.5, True, 0)
    with pytest.raises(quilt.Error, match=re.escape(
            "argument 2 (f32): expected a number, got 'x'")):
        scaled(a, b, "x", 1, True, 0)
    with pytest.raises(quilt.Error, match=re.escape(
            "argument 4 (i1): 2 does not fit")):
        scaled(a, b, 1.0, 1, 2, 0)
    with pytest.raises(quilt.Error, match=re.escape(
            "argument 5 (i8): 300 does not fit")):
        scaled(a, b, 1.0, 1, True, 300)
    with pytest.raises(quilt.Error, match=re.escape(
            "argument 3 (index): expected an integer, got array")):
        scaled(a, b, 1.0, np.ones(2, np.int64), True, 0)


STATIC_ROWS = """
func.func @rows(%a: tensor<4x?xf32>) -> tensor<4x?xf32> {
  return %a : tensor<4x?xf32>
}
"""


def test_argument_errors(matmul_memref_library):
    matmul = quilt.load(MATMUL_TENSOR, "matmul")
    a = np.ones((2, 3), np.float32)
    with pytest.raises(quilt.Error, match="takes 2 arguments"):
        matmul(a)
    with pytest.raises(quilt.Error, match="argument 1: expected float32"):
        matmul(a, np.ones((3, 2), np.float64))
    # A wrong rank or static size says which, not only the dtype.
    with pytest.raises(quilt.Error, match=exactly(
            "matmul: argument 0: tensor<?x?xf32> has rank 2, got a float32 "
            "array of shape 3 (rank 1)")):
        matmul(np.ones(3, np.float32), a)
    fixed = quilt.load(STATIC_ROWS, "rows")
    with pytest.raises(quilt.Error, match=exactly(
            "rows: argument 0: dimension 0 of tensor<4x?xf32> is 4, got a "
            "float32 array of shape 3x2")):
        fixed(np.ones((3, 2), np.float32))
    with pytest.raises(quilt.Error, match="expected a numpy array"):
        matmul(a, [[1.0]])
    in_place = quilt.load(matmul_memref_library, "matmul")
    c = np.zeros((4, 4), np.float32)
    with pytest.raises(quilt.Error, match="C-contiguous"):
        in_place(a, a.T.copy(), c[:, :2])
    frozen = np.zeros((2, 2), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(quilt.Error, match="writable"):
        in_place(a, a.T.copy(), frozen)


def exactly(message):
    """A pytest.raises pattern matching `message` and nothing more."""
    return "^" + re.escape(message) + "$"


def test_operand_checks_raise(matmul_memref_library, rng):
    matmul = quilt.load(matmul_memref_library, "matmul")
    a, b = random_matrix(rng, 17, 32), random_matrix(rng, 31, 64)
    c = random_matrix(rng, 17, 64)
    before = c.copy()
    with pytest.raises(quilt.Error, match=exactly(
            "quilt: @matmul dispatch 0 (matmul f32): B has 31 rows, "
            "A has 32 columns (K)")):
        matmul(a, b, c)
    np.testing.assert_array_equal(c, before)
    with pytest.raises(quilt.Error, match=exactly(
            "quilt: @matmul dispatch 0 (matmul f32): C has 63 columns, "
            "B has 64 columns (N)")):
        matmul(a, random_matrix(rng, 32, 64), np.zeros((17, 63), np.float32))
    # The status was cleared: a valid call right after runs.
    b = random_matrix(rng, 32, 64)
    assert matmul(a, b, c) is None
    np.testing.assert_allclose(c, before + a @ b, **TOLERANCE)

    # A function returning a tensor raises too (its result is released).
    bias_gelu = quilt.load(BIAS_GELU, "bias_gelu")
    x, w = random_matrix(rng, 4, 3), random_matrix(rng, 3, 6)
    with pytest.raises(quilt.Error, match=exactly(
            "quilt: @bias_gelu dispatch 0 (matmul f32): fused epilogue "
            "operand #0 has 5 elements, C has 6 columns (N)")):
        bias_gelu(x, w, np.ones(5, np.float32))
    assert bias_gelu(x, w, np.ones(6, np.float32)).shape == (4, 6)


def test_load_errors(matmul_memref_library, tmp_path):
    with pytest.raises(quilt.Error, match="no function _quilt_call_gemm"):
        quilt.load(matmul_memref_library, "gemm")
    with pytest.raises(quilt.Error, match="no such file"):
        quilt.load(str(tmp_path / "missing.so"), "matmul")
    not_a_library = tmp_path / "x.so"
    not_a_library.write_text("hello")
    with pytest.raises(quilt.Error, match="cannot load"):
        quilt.load(not_a_library, "matmul")
    with pytest.raises(quilt.Error, match="not an MLIR function type"):
        quilt.load(matmul_memref_library, "matmul", signature="f32")
    with pytest.raises(quilt.Error, match="is not the library's"):
        quilt.load(matmul_memref_library, "matmul",
                   signature="(index) -> ()")
    with pytest.raises(quilt.Error, match="memrefs and tensors, and scalars"):
        quilt.load(matmul_memref_library, "matmul",
                   signature="(vector<4xf32>) -> ()")
    with pytest.raises(quilt.Error, match="bf16 in arrays only"):
        quilt.load(matmul_memref_library, "matmul", signature="(bf16) -> ()")
    with pytest.raises(quilt.Error, match="no func.func @nope"):
        quilt.load(MATMUL_TENSOR, "nope")
