"""Products written every way Quilt takes over (programs products.mlir):
user indexing maps on batch_matmul, shared operands, linalg.contract and
generic contractions, each against NumPy at dynamic sizes that include 0,
1, primes and non-multiples of every tile."""

import numpy as np
import pytest

import quilt
from conftest import random_matrix
from programs import program

TOLERANCE = dict(rtol=1e-4, atol=1e-4)
SIZES = [(2, 0, 3, 5), (1, 1, 1, 1), (3, 7, 13, 11), (2, 31, 37, 41),
         (4, 65, 33, 64)]


@pytest.fixture(scope="module")
def products(tmp_path_factory):
    # The forms of the products (transposed and shared operands, generic
    # and linalg.contract spellings, fused epilogues) are what is tested;
    # four candidates per dispatch keep the host build of its eleven
    # dispatches short (every host candidate is checked in
    # test_whole_programs.py).
    path = tmp_path_factory.mktemp("products") / "products.so"
    return quilt.compile(program("products"), emit="shared", max_candidates=4,
                         output=str(path))


def batch(rng, count, rows, cols, dtype=np.float32):
    return rng.uniform(-1, 1, size=(count, rows, cols)).astype(dtype)


def f64(x):
    return x.astype(np.float64)


@pytest.mark.parametrize("b,m,n,k", SIZES)
def test_batched_products(products, rng, b, m, n, k):
    q, keys = batch(rng, b, m, k), batch(rng, b, n, k)
    scores = quilt.load(products, "scores_qkt")
    np.testing.assert_allclose(scores(q, keys),
                               f64(q) @ f64(keys).transpose(0, 2, 1),
                               **TOLERANCE)

    at, bb, c = batch(rng, b, k, m), batch(rng, b, k, n), batch(rng, b, m, n)
    transposed = quilt.load(products, "bmm_a_transposed")
    np.testing.assert_allclose(transposed(at, bb, c),
                               c + f64(at).transpose(0, 2, 1) @ f64(bb),
                               **TOLERANCE)

    a, w = batch(rng, b, m, k), random_matrix(rng, k, n)
    shared_b = quilt.load(products, "bmm_shared_b")
    np.testing.assert_allclose(shared_b(a, w, c), c + f64(a) @ f64(w),
                               **TOLERANCE)
    in_place = quilt.load(products, "bmm_shared_b_memref")
    expected = c + f64(a) @ f64(w)
    out = c.copy()
    in_place(a, w, out)
    np.testing.assert_allclose(out, expected, **TOLERANCE)

    shared = random_matrix(rng, m, k)
    shared_a = quilt.load(products, "bmm_shared_a")
    np.testing.assert_allclose(shared_a(shared, bb, c),
                               c + f64(shared) @ f64(bb), **TOLERANCE)

    generic = quilt.load(products, "generic_batched_memref")
    out = c.copy()
    generic(a, bb, out)
    np.testing.assert_allclose(out, c + f64(a) @ f64(bb), **TOLERANCE)


@pytest.mark.parametrize("b,m,n,k", SIZES)
def test_shared_operand_products_with_epilogues(products, rng, b, m, n, k):
    a, w = batch(rng, b, m, k), random_matrix(rng, k, n)
    bias = rng.uniform(-1, 1, size=n).astype(np.float32)
    res = batch(rng, b, m, n)
    fused = quilt.load(products, "shared_b_bias_residual_relu")
    np.testing.assert_allclose(fused(a, w, bias, res),
                               np.maximum(f64(a) @ f64(w) + bias + res, 0),
                               **TOLERANCE)

    rows = rng.uniform(-1, 1, size=m).astype(np.float32)
    row_scale = quilt.load(products, "shared_b_row_scale")
    np.testing.assert_allclose(row_scale(a, w, rows),
                               (f64(a) @ f64(w)) * rows[:, None],
                               **TOLERANCE)

    shared, bb = random_matrix(rng, m, k), batch(rng, b, k, n)
    broadcast = quilt.load(products, "shared_a_row_scale")
    np.testing.assert_allclose(broadcast(shared, bb, rows),
                               (f64(shared) @ f64(bb)) * rows[:, None],
                               **TOLERANCE)


@pytest.mark.parametrize("_,m,n,k", SIZES)
def test_matrix_products(products, rng, _, m, n, k):
    a, bt, c = (random_matrix(rng, m, k), random_matrix(rng, n, k),
                random_matrix(rng, m, n))
    contract = quilt.load(products, "contract_bt")
    np.testing.assert_allclose(contract(a, bt, c), c + f64(a) @ f64(bt).T,
                               **TOLERANCE)

    a16 = random_matrix(rng, m, k, np.float16)
    b16 = random_matrix(rng, k, n, np.float16)
    ct = random_matrix(rng, n, m)
    out_t = quilt.load(products, "generic_output_transposed")
    np.testing.assert_allclose(out_t(a16, b16, ct),
                               ct + (f64(a16) @ f64(b16)).T, rtol=1e-3,
                               atol=1e-3)

    b = random_matrix(rng, k, n)
    negated = quilt.load(products, "not_a_product")
    np.testing.assert_allclose(negated(a, b, c), c - f64(a) @ f64(b),
                               **TOLERANCE)
