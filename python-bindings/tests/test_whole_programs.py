"""Whole programs on the host: a contraction among ops Quilt does not take
over (programs.py), each compared with NumPy at dynamic sizes that include
0, 1 and primes."""

import numpy as np
import pytest

import quilt
from conftest import BIAS_GELU, bias_gelu_reference, random_matrix
from programs import (F64_FUNCTIONS, MEMREF_EPILOGUE_FUNCTIONS,
                      layernorm_reference, padded_reference, power_reference,
                      program, run_f64_products, run_memref_epilogues,
                      scaled_matmul_reference, softmax_reference,
                      tanh_residual_reference)

TOLERANCE = dict(rtol=1e-4, atol=1e-5)
SHAPES = [(0, 3, 5), (4, 0, 3), (3, 5, 0), (1, 1, 1), (7, 13, 11),
          (31, 37, 41), (97, 101, 103)]


def compiled(name, function):
    """Each program is compiled once for the module's tests."""
    return pytest.fixture(scope="module", name=function)(
        lambda: quilt.load(program(name), function))


scores = compiled("scores-softmax", "scores")
dense_layernorm = compiled("dense-layernorm", "dense_layernorm")
power = compiled("matmul-power-loop", "power")
scaled_matmul = compiled("scaled-matmul-dealloc", "scaled_matmul")
padded = compiled("padded-matmul", "padded")
tanh_residual = compiled("tensor-arith", "tanh_residual")


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_softmax_of_scores(scores, rng, m, n, k):
    a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
    np.testing.assert_allclose(scores(a, b), softmax_reference(a, b),
                               **TOLERANCE)


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_dense_layernorm(dense_layernorm, rng, m, n, k):
    x, w = random_matrix(rng, m, k), random_matrix(rng, k, n)
    bias = rng.uniform(-1, 1, size=n).astype(np.float32)
    np.testing.assert_allclose(dense_layernorm(x, w, bias),
                               layernorm_reference(x, w, bias), rtol=1e-3,
                               atol=1e-3)


@pytest.mark.parametrize("n,steps", [(0, 2), (1, 3), (7, 0), (13, 1), (31, 3)])
def test_matmul_in_a_loop(power, rng, n, steps):
    a, b = random_matrix(rng, 5, n), random_matrix(rng, n, n)
    np.testing.assert_allclose(power(a, b, steps), power_reference(a, b, steps),
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_program_that_frees_its_buffers(scaled_matmul, rng, m, n, k):
    a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
    c = random_matrix(rng, m, n)
    expected = scaled_matmul_reference(a, b, c)
    assert scaled_matmul(a, b, c) is None
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_padded_matmul_and_slice(padded, rng, m, n, k):
    a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
    whole, inner = padded(a, b)
    expected_whole, expected_inner = padded_reference(a, b)
    np.testing.assert_allclose(whole, expected_whole, **TOLERANCE)
    np.testing.assert_allclose(inner, expected_inner, **TOLERANCE)


@pytest.mark.parametrize("m,n,k", SHAPES)
def test_arith_on_tensors_fused(tanh_residual, rng, m, n, k):
    a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
    r, s = random_matrix(rng, m, n), random_matrix(rng, m, n)
    np.testing.assert_allclose(tanh_residual(a, b, r, s),
                               tanh_residual_reference(a, b, r, s), rtol=1e-4,
                               atol=1e-5)


@pytest.fixture(scope="module")
def memref_epilogues():
    source = program("memref-epilogues")
    return {name: quilt.load(source, name)
            for name in MEMREF_EPILOGUE_FUNCTIONS}


@pytest.mark.parametrize("m,n,k", SHAPES + [(200, 300, 129), (16, 600, 301)])
def test_epilogues_fused_on_buffers(memref_epilogues, rng, m, n, k):
    run_memref_epilogues(memref_epilogues, rng, m, n, k)


@pytest.fixture(scope="module")
def f64_products():
    source = program("f64-products")
    return {name: quilt.load(source, name) for name in F64_FUNCTIONS}


@pytest.mark.parametrize("m,n,k", SHAPES + [(200, 300, 129), (16, 600, 301)])
def test_f64_products(f64_products, rng, m, n, k):
    run_f64_products(f64_products, rng, m, n, k)


F64_MATMUL = """
func.func @mm(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>) {
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>)
                outs(%c : memref<?x?xf64>)
  return
}
"""


def forced_host_candidate(tmp_path, source, name, dtype, candidate):
    """`name` of `source`, compiled with the host's default `dtype`
    candidate `candidate` forced (policy fixed=i); skips past the last."""
    count = len(quilt.explain("matmul %s M=64 N=64 K=64" % dtype,
                              "host")["candidates"])
    if candidate >= count:
        pytest.skip("this host has %d %s candidates" % (count, dtype))
    library = quilt.compile(source, emit="shared",
                            policy="fixed=%d" % candidate,
                            output=str(tmp_path / (name + ".so")))
    return quilt.load(library, name, source=source)


@pytest.mark.parametrize("candidate", range(16))
def test_every_f64_host_candidate(tmp_path, rng, candidate):
    """Each default f64 candidate of this machine, forced, on shapes with
    0, 1, primes and non-multiples of every tile; sums of exact products
    agree with NumPy's to 1e-12."""
    mm = forced_host_candidate(tmp_path, F64_MATMUL, "mm", "f64", candidate)
    for m, n, k in SHAPES + [(130, 70, 20), (33, 40, 200), (3, 1100, 65)]:
        a = rng.integers(-8, 9, size=(m, k)) / 8.0
        b = rng.integers(-8, 9, size=(k, n)) / 8.0
        c = rng.integers(-8, 9, size=(m, n)) / 8.0
        expected = c + a @ b
        mm(a, b, c)
        np.testing.assert_allclose(c, expected, rtol=0, atol=1e-12)


F32_TRANSPOSED_A = """
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @mm_at(%at: memref<?x?xf32>, %b: memref<?x?xf32>,
                 %c: memref<?x?xf32>) {
  linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%at, %b : memref<?x?xf32>, memref<?x?xf32>)
      outs(%c : memref<?x?xf32>)
  return
}
"""

# Past the small and skinny paths (M > 16, operands larger than one cache
# block), with primes and non-multiples of every tile, and empty extents.
PACKED_PATH_SHAPES = [(17, 1, 1), (97, 101, 103), (130, 70, 300),
                      (1031, 67, 29), (37, 600, 257), (0, 5, 3), (19, 7, 0)]


@pytest.mark.parametrize("candidate", range(16))
def test_every_f32_host_candidate(tmp_path, rng, candidate):
    """Each default f32 candidate of this machine, forced, with A stored
    transposed: those whose N block holds few register-block columns read
    A in place and pack only B, the others pack both
    (quilt::cpuReadsAInPlace)."""
    mm_at = forced_host_candidate(tmp_path, F32_TRANSPOSED_A, "mm_at", "f32",
                                  candidate)
    for m, n, k in PACKED_PATH_SHAPES:
        at = random_matrix(rng, k, m)
        b = random_matrix(rng, k, n)
        c = random_matrix(rng, m, n)
        expected = c + at.T.astype(np.float64) @ b.astype(np.float64)
        mm_at(at, b, c)
        np.testing.assert_allclose(c, expected, **TOLERANCE)


@pytest.mark.parametrize("candidate", [0, 11])
def test_f32_host_candidates_with_epilogue(tmp_path, rng, candidate):
    """Two default candidates (on the AVX-512 machines this was written
    on, 1024x128x64 with A read in place and 64x4096x128 with A packed)
    with a folded fill and a fused bias and GELU. Compiling an epilogue
    kernel takes twice as long; the forced runs above cover every
    candidate's product."""
    bias_gelu = forced_host_candidate(tmp_path, BIAS_GELU, "bias_gelu", "f32",
                                      candidate)
    for m, n, k in PACKED_PATH_SHAPES:
        x = random_matrix(rng, m, k)
        w = random_matrix(rng, k, n)
        bias = random_matrix(rng, 1, n).reshape(n)
        np.testing.assert_allclose(bias_gelu(x, w, bias),
                                   bias_gelu_reference(x, w, bias),
                                   **TOLERANCE)
