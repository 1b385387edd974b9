"""quilt.load on GPU builds, run on the PTX emulator (docs/gpu-emulator.md).

The GPU runtime opens its driver at the first GPU call of the process, so
quilt.use_emulator() comes first; nothing else in this suite calls a GPU.
"""

import numpy as np
import pytest

import quilt
from conftest import SHAPES, random_matrix
from programs import (F64_FUNCTIONS, MEMREF_EPILOGUE_FUNCTIONS,
                      layernorm_reference, padded_reference, power_reference,
                      program, run_f64_products, run_memref_epilogues,
                      scaled_matmul_reference, softmax_reference)

MIXED_MEMREF = """
func.func @mm_f16(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf16>, memref<?x?xf16>) outs(%c : memref<?x?xf32>)
  return
}
"""

MIXED_TENSOR = """
func.func @mm(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def emulator():
    try:
        return quilt.use_emulator("h100")
    except quilt.Error as error:
        pytest.skip(str(error))


def reference(a, b, c):
    return a.astype(np.float64) @ b.astype(np.float64) + c


@pytest.mark.parametrize("options", [{"native_wgmma": False}, {}],
                         ids=["mma-sync", "wgmma-tma"])
def test_memref_matmul_in_place(emulator, rng, options):
    library = quilt.compile(MIXED_MEMREF, target="h100", emit="shared",
                            device_format="isa", **options)
    mm = quilt.load(library, "mm_f16", source=MIXED_MEMREF)
    for m, n, k in SHAPES:
        a = rng.standard_normal((m, k)).astype(np.float16)
        b = rng.standard_normal((k, n)).astype(np.float16)
        c = rng.standard_normal((m, n)).astype(np.float32)
        expected = reference(a, b, c)
        mm(a, b, c)
        np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4)


def test_tensor_result_comes_back_from_device_memory(emulator, rng):
    library = quilt.compile(MIXED_TENSOR, target="h100", emit="shared",
                            device_format="isa")
    mm = quilt.load(library, "mm", source=MIXED_TENSOR)
    a = rng.standard_normal((37, 70)).astype(np.float16)
    b = rng.standard_normal((70, 29)).astype(np.float16)
    c = np.ones((37, 29), np.float32)
    result = mm(a, b, c)
    assert result.shape == (37, 29)
    np.testing.assert_allclose(result, reference(a, b, c), rtol=1e-4,
                               atol=1e-4)
    # A tensor argument is a value: the caller's array is unchanged.
    assert np.all(c == 1)


def test_mismatched_sizes_raise(emulator, rng):
    library = quilt.compile(MIXED_MEMREF, target="h100", emit="shared",
                            device_format="isa")
    mm = quilt.load(library, "mm_f16", source=MIXED_MEMREF)
    a = np.ones((8, 16), np.float16)
    b = np.ones((12, 8), np.float16)
    c = np.zeros((8, 8), np.float32)
    with pytest.raises(quilt.Error, match="B has 12 rows, A has 16 columns"):
        mm(a, b, c)


def test_a_cubin_library_says_the_emulator_needs_ptx(emulator):
    library = quilt.compile(MIXED_MEMREF, target="h100", emit="shared",
                            device_format="bin")
    with pytest.raises(quilt.Error, match="cannot use .*GPU: .*cubin.*PTX"):
        quilt.load(library, "mm_f16", source=MIXED_MEMREF)


def load_for_h100(name, function):
    library = quilt.compile(program(name), target="h100", emit="shared",
                            device_format="isa")
    return quilt.load(library, function, source=program(name))


# Whole programs (programs.py): Quilt's kernels and the upstream-mapped
# kernels of everything else, in one device module, on the emulated H100.
WHOLE_PROGRAM_SHAPES = [(0, 3, 5), (1, 1, 1), (7, 13, 11), (97, 101, 103)]


def test_softmax_and_layernorm_programs(emulator, rng):
    scores = load_for_h100("scores-softmax", "scores")
    dense = load_for_h100("dense-layernorm", "dense_layernorm")
    for m, n, k in WHOLE_PROGRAM_SHAPES:
        a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
        np.testing.assert_allclose(scores(a, b), softmax_reference(a, b),
                                   rtol=1e-4, atol=1e-5)
        bias = rng.uniform(-1, 1, size=n).astype(np.float32)
        np.testing.assert_allclose(dense(a, b, bias),
                                   layernorm_reference(a, b, bias), rtol=1e-3,
                                   atol=1e-3)


def test_strided_copies_run_as_kernels(emulator, rng):
    padded = load_for_h100("padded-matmul", "padded")
    for m, n, k in WHOLE_PROGRAM_SHAPES:
        a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
        whole, inner = padded(a, b)
        expected_whole, expected_inner = padded_reference(a, b)
        np.testing.assert_allclose(whole, expected_whole, rtol=1e-4,
                                   atol=1e-5)
        np.testing.assert_allclose(inner, expected_inner, rtol=1e-4,
                                   atol=1e-5)


def test_loop_and_own_buffers_programs(emulator, rng):
    power = load_for_h100("matmul-power-loop", "power")
    scaled = load_for_h100("scaled-matmul-dealloc", "scaled_matmul")
    for n, steps in [(1, 3), (13, 0), (31, 2)]:
        a, b = random_matrix(rng, 5, n), random_matrix(rng, n, n)
        np.testing.assert_allclose(power(a, b, steps),
                                   power_reference(a, b, steps), rtol=1e-4,
                                   atol=1e-4)
    for m, n, k in WHOLE_PROGRAM_SHAPES:
        a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
        c = random_matrix(rng, m, n)
        expected = scaled_matmul_reference(a, b, c)
        scaled(a, b, c)
        np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-5)


def test_epilogues_fused_on_buffers(emulator, rng):
    """memref-epilogues' fused epilogues (in place, through a temporary the
    dispatch never writes, rounded to f16, folded with a shared weight) as
    h100 kernels."""
    library = quilt.compile(program("memref-epilogues"), target="h100",
                            emit="shared", device_format="isa")
    functions = {name: quilt.load(library, name,
                                  source=program("memref-epilogues"))
                 for name in MEMREF_EPILOGUE_FUNCTIONS}
    for m, n, k in WHOLE_PROGRAM_SHAPES:
        run_memref_epilogues(functions, rng, m, n, k)


def test_f64_products(emulator, rng):
    """f64-products' SIMT kernels, which accumulate in f64, on the emulated
    H100."""
    source = program("f64-products")
    library = quilt.compile(source, target="h100", emit="shared",
                            device_format="isa")
    functions = {name: quilt.load(library, name, source=source)
                 for name in F64_FUNCTIONS}
    for m, n, k in WHOLE_PROGRAM_SHAPES:
        run_f64_products(functions, rng, m, n, k)


def test_products_written_every_way(emulator, rng):
    """products.mlir's batched products with transposed and shared operands
    (one with a fused epilogue), and a generic with its output transposed,
    as h100 kernels."""
    library = quilt.compile(program("products"), target="h100", emit="shared",
                            device_format="isa")

    def load(name):
        return quilt.load(library, name, source=program("products"))

    scores, transposed, shared_b, out_t, fused = (
        load("scores_qkt"), load("bmm_a_transposed"), load("bmm_shared_b"),
        load("generic_output_transposed"),
        load("shared_b_bias_residual_relu"))
    f64 = np.float64
    for b, m, n, k in [(1, 1, 1, 1), (3, 7, 13, 11), (2, 65, 33, 70)]:
        def batch(rows, cols):
            return rng.uniform(-1, 1, size=(b, rows, cols)).astype(np.float32)
        q, keys, c = batch(m, k), batch(n, k), batch(m, n)
        np.testing.assert_allclose(
            scores(q, keys), q.astype(f64) @ keys.astype(f64).transpose(0, 2, 1),
            rtol=1e-4, atol=1e-4)
        at, bb = batch(k, m), batch(k, n)
        np.testing.assert_allclose(
            transposed(at, bb, c),
            c + at.astype(f64).transpose(0, 2, 1) @ bb.astype(f64),
            rtol=1e-4, atol=1e-4)
        w = random_matrix(rng, k, n)
        np.testing.assert_allclose(shared_b(q, w, c),
                                   c + q.astype(f64) @ w.astype(f64),
                                   rtol=1e-4, atol=1e-4)
        a16 = random_matrix(rng, m, k, np.float16)
        b16 = random_matrix(rng, k, n, np.float16)
        ct = random_matrix(rng, n, m)
        np.testing.assert_allclose(
            out_t(a16, b16, ct), ct + (a16.astype(f64) @ b16.astype(f64)).T,
            rtol=1e-3, atol=1e-3)
        # A shared weight with its epilogue folded into rows as well.
        bias = rng.uniform(-1, 1, size=n).astype(np.float32)
        np.testing.assert_allclose(
            fused(q, w, bias, c),
            np.maximum(q.astype(f64) @ w.astype(f64) + bias + c, 0),
            rtol=1e-4, atol=1e-4)


def test_decode_step_with_cache_updates(emulator):
    """The two-layer decode step of test_decode_step.py on the emulated
    H100: its cache updates and flash-decoding loop, written as memref
    loads and stores in host code, run as one-thread kernels
    (quilt-gpu-host-accesses-to-kernels), the products as Quilt's kernels."""
    from decode_step import decode_step_mlir, random_inputs, reference
    text = decode_step_mlir()
    library = quilt.compile(text, target="h100", emit="shared",
                            device_format="isa")
    step = quilt.load(library, "decode_step", source=text)
    for pos in (0, 7):
        rng = np.random.default_rng(2000 + pos)
        x, values = random_inputs(rng, pos)
        results = step(x, pos, *values)
        expected = reference(x, pos, values)
        np.testing.assert_allclose(results[0], expected[0], rtol=2e-4,
                                   atol=2e-4)
        assert int(np.argmax(results[0])) == int(np.argmax(expected[0]))
        for got, want in zip(results[1:], expected[1:]):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
