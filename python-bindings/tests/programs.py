"""Whole programs as users and model exporters write them, a contraction
among ops Quilt does not take over, with NumPy references. The programs are
test/Integration/Programs/Inputs/*.mlir, which lit also compiles for every
target; test_whole_programs.py runs them on the host, test_gpu_emulator.py
on the emulated GPU."""

import numpy as np

from conftest import SOURCE_DIR

PROGRAMS_DIR = SOURCE_DIR / "test" / "Integration" / "Programs" / "Inputs"


def program(name):
    """The source text of Inputs/<name>.mlir."""
    return (PROGRAMS_DIR / (name + ".mlir")).read_text()


def softmax_reference(a, b):
    """scores-softmax: each row of A x B through softmax."""
    c = a.astype(np.float64) @ b.astype(np.float64)
    if c.size == 0:
        return c
    e = np.exp(c - c.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm_reference(x, w, bias):
    """dense-layernorm: X x W + bias, normalized over each row."""
    h = x.astype(np.float64) @ w.astype(np.float64) + bias
    if h.size == 0:
        return h
    mean = h.mean(axis=1, keepdims=True)
    var = (h * h).mean(axis=1, keepdims=True) - mean * mean
    return (h - mean) / np.sqrt(var + 1e-5)


def power_reference(a, b, steps):
    """matmul-power-loop: A x B^steps."""
    r = a.astype(np.float64)
    for _ in range(steps):
        r = r @ b.astype(np.float64)
    return r


def scaled_matmul_reference(a, b, c):
    """scaled-matmul-dealloc: C + (A / 2) x B."""
    return c + (0.5 * a.astype(np.float64)) @ b.astype(np.float64)


def padded_reference(a, b):
    """padded-matmul: [0; A; 0; 0] x B, and its rows of A x B."""
    product = a.astype(np.float64) @ b.astype(np.float64)
    zeros = np.zeros((1, b.shape[1]))
    padded = np.concatenate([zeros, product, zeros, zeros])
    return padded, product


def tanh_residual_reference(a, b, r, s):
    """tensor-arith: tanh(A x B + R) * S."""
    return np.tanh(a.astype(np.float64) @ b.astype(np.float64) + r) * s


def dense_relu_reference(x, w, bias):
    """memref-epilogues @dense_relu: relu(X x W + bias)."""
    return np.maximum(x.astype(np.float64) @ w.astype(np.float64) + bias, 0)


def scaled_residual_reference(x, w, r, scale):
    """memref-epilogues @scaled_residual: (X x W) * scale + R."""
    return (x.astype(np.float64) @ w.astype(np.float64)) * scale + r


def tanh_f16_reference(x, w, bias):
    """memref-epilogues @tanh_f16: tanh(X x W + bias), X and W f16."""
    return np.tanh(x.astype(np.float64) @ w.astype(np.float64) + bias)


MEMREF_EPILOGUE_FUNCTIONS = ("dense_relu", "scaled_residual", "tanh_f16",
                             "shared_weight_bias")


def run_memref_epilogues(functions, rng, m, n, k):
    """Runs memref-epilogues' functions, as `functions` (name ->
    callable) gives them, into outputs filled with 7s (which they must
    overwrite) and checks each against its reference."""
    uniform = lambda *shape: rng.uniform(-1, 1, size=shape).astype(np.float32)
    x, w, bias, r = uniform(m, k), uniform(k, n), uniform(n), uniform(m, n)
    out = np.full((m, n), 7, np.float32)
    functions["dense_relu"](x, w, bias, out)
    np.testing.assert_allclose(out, dense_relu_reference(x, w, bias),
                               rtol=1e-4, atol=1e-5)
    out = np.full((m, n), 7, np.float32)
    scale = np.array(0.75, np.float32)
    functions["scaled_residual"](x, w, r, scale, out)
    np.testing.assert_allclose(out, scaled_residual_reference(x, w, r, 0.75),
                               rtol=1e-4, atol=1e-5)
    x16, w16 = x.astype(np.float16), w.astype(np.float16)
    out16 = np.full((m, n), 7, np.float16)
    functions["tanh_f16"](x16, w16, bias, out16)
    np.testing.assert_allclose(out16.astype(np.float64),
                               tanh_f16_reference(x16, w16, bias), rtol=2e-3,
                               atol=2e-3)

    batched = uniform(3, m, k)
    out3 = np.full((3, m, n), 7, np.float32)
    functions["shared_weight_bias"](batched, w, bias, out3)
    np.testing.assert_allclose(out3, batched.astype(np.float64) @ w + bias,
                               rtol=1e-4, atol=1e-5)


F64_FUNCTIONS = ("dense_tanh", "scaled_scores", "accumulate", "conv_bias")


def run_f64_products(functions, rng, m, n, k, conv_rows=None):
    """Runs f64-products' functions (name -> callable) with float64 operands
    and checks each against NumPy's float64 result to double precision:
    sums of up to a few hundred products agree to 1e-12. The convolution's
    image has m output rows, or at most `conv_rows`."""
    uniform = lambda *shape: rng.uniform(-1, 1, size=shape)
    tight = dict(rtol=1e-12, atol=1e-12)
    x, w, bias = uniform(m, k), uniform(k, n), uniform(n)
    result = functions["dense_tanh"](x, w, bias)
    assert result.dtype == np.float64
    np.testing.assert_allclose(result, np.tanh(x @ w + bias), **tight)

    q, keys = uniform(2, m, k), uniform(2, n, k)
    np.testing.assert_allclose(functions["scaled_scores"](q, keys, 0.125),
                               0.125 * (q @ keys.transpose(0, 2, 1)), **tight)

    c = uniform(m, n)
    expected = c + x @ w
    functions["accumulate"](x, w, c)
    np.testing.assert_allclose(c, expected, **tight)

    # An image of (rows + 2) x (n + 2) pixels with k channels: rows x n
    # outputs of filters 3 x 3 x k x 5.
    rows = m if conv_rows is None else min(m, conv_rows)
    image, filt, fbias = uniform(1, rows + 2, n + 2, k), \
        uniform(3, 3, k, 5), uniform(5)
    reference = fbias + sum(image[:, r:r + rows, s:s + n, :] @ filt[r, s]
                            for r in range(3) for s in range(3))
    np.testing.assert_allclose(functions["conv_bias"](image, filt, fbias),
                               reference, **tight)
