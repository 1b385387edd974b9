"""Whole programs (programs.py) run on an emulated GPU: Quilt's kernels and
the upstream-mapped kernels of everything else, in one device module.

Each check takes the emulated target, compiles the program for it (PTX text
for NVIDIA targets, code objects for AMD ones: what the emulators run) and
compares every result with a NumPy reference. test_gpu_emulator.py runs them
on the emulated H100 in its own process; test_amd_emulator.py runs each for
mi300x and rx7900xtx in a fresh interpreter (`python -m emulated_programs
TARGET CHECK`), as the HIP emulator answers as one AMD target per process.
"""

import sys
import tempfile

import numpy as np

import quilt
from conftest import random_matrix
from programs import (F64_FUNCTIONS, MEMREF_EPILOGUE_FUNCTIONS,
                      layernorm_reference, padded_reference, power_reference,
                      program, run_f64_products, run_memref_epilogues,
                      scaled_matmul_reference, softmax_reference)

SHAPES = [(0, 3, 5), (1, 1, 1), (7, 13, 11), (97, 101, 103)]

# What the emulators run (docs/gpu-emulator.md).
_AMD_TARGETS = ("mi300x", "mi250x", "rx7900xtx")


# The libraries, removed when the interpreter exits.
_LIBRARIES = tempfile.TemporaryDirectory(prefix="quilt-emulated-")


def compile_for(target, source):
    # Two candidates per dispatch, as Integration/Programs/targets.test
    # compiles these programs: what runs here is the program around the
    # dispatches (host code, upstream-mapped kernels, device buffers) and a
    # run-time choice. Every candidate of every target, fused epilogues
    # included, runs on the emulators in test/Integration/Emulator; all 16
    # here made these checks most of the suite's time (GPU code generation
    # grows with the candidates: 24 s against 3 s for memref-epilogues).
    device_format = "bin" if target in _AMD_TARGETS else "isa"
    output = tempfile.mktemp(suffix=".so", dir=_LIBRARIES.name)
    return quilt.compile(source, target=target, emit="shared",
                         device_format=device_format, max_candidates=2,
                         output=output)


def load(target, name, function):
    return quilt.load(compile_for(target, program(name)), function,
                      source=program(name))


def softmax_and_layernorm(target, rng):
    scores = load(target, "scores-softmax", "scores")
    dense = load(target, "dense-layernorm", "dense_layernorm")
    for m, n, k in SHAPES:
        a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
        np.testing.assert_allclose(scores(a, b), softmax_reference(a, b),
                                   rtol=1e-4, atol=1e-5)
        bias = rng.uniform(-1, 1, size=n).astype(np.float32)
        np.testing.assert_allclose(dense(a, b, bias),
                                   layernorm_reference(a, b, bias), rtol=1e-3,
                                   atol=1e-3)


def strided_copies_as_kernels(target, rng):
    padded = load(target, "padded-matmul", "padded")
    for m, n, k in SHAPES:
        a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
        whole, inner = padded(a, b)
        expected_whole, expected_inner = padded_reference(a, b)
        np.testing.assert_allclose(whole, expected_whole, rtol=1e-4,
                                   atol=1e-5)
        np.testing.assert_allclose(inner, expected_inner, rtol=1e-4,
                                   atol=1e-5)


def loop_and_own_buffers(target, rng):
    power = load(target, "matmul-power-loop", "power")
    scaled = load(target, "scaled-matmul-dealloc", "scaled_matmul")
    for n, steps in [(1, 3), (13, 0), (31, 2)]:
        a, b = random_matrix(rng, 5, n), random_matrix(rng, n, n)
        np.testing.assert_allclose(power(a, b, steps),
                                   power_reference(a, b, steps), rtol=1e-4,
                                   atol=1e-4)
    for m, n, k in SHAPES:
        a, b = random_matrix(rng, m, k), random_matrix(rng, k, n)
        c = random_matrix(rng, m, n)
        expected = scaled_matmul_reference(a, b, c)
        scaled(a, b, c)
        np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-5)


def epilogues_fused_on_buffers(target, rng):
    """memref-epilogues' fused epilogues (in place, through a temporary the
    dispatch never writes, rounded to f16, folded with a shared weight)."""
    library = compile_for(target, program("memref-epilogues"))
    functions = {name: quilt.load(library, name,
                                  source=program("memref-epilogues"))
                 for name in MEMREF_EPILOGUE_FUNCTIONS}
    for m, n, k in SHAPES:
        run_memref_epilogues(functions, rng, m, n, k)


def f64_products(target, rng):
    """f64-products' SIMT kernels, which accumulate in f64."""
    source = program("f64-products")
    library = compile_for(target, source)
    functions = {name: quilt.load(library, name, source=source)
                 for name in F64_FUNCTIONS}
    # The convolution at 97 x 101 outputs (M = 9797 pixels, K = 927) was
    # most of this suite's emulation (78 s of f64 SIMT on the PTX emulator,
    # 46 s on mi300x's): 13 rows keep several M tiles and a partial one,
    # with the same K.
    for m, n, k in SHAPES:
        run_f64_products(functions, rng, m, n, k, conv_rows=13)


def products_written_every_way(target, rng):
    """products.mlir's batched products with transposed and shared operands
    (one with a fused epilogue), and a generic with its output
    transposed."""
    library = compile_for(target, program("products"))

    def load_product(name):
        return quilt.load(library, name, source=program("products"))

    scores, transposed, shared_b, out_t, fused = (
        load_product("scores_qkt"), load_product("bmm_a_transposed"),
        load_product("bmm_shared_b"), load_product("generic_output_transposed"),
        load_product("shared_b_bias_residual_relu"))
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


def decode_step_with_cache_updates(target, rng):
    """The two-layer decode step of test_decode_step.py: its cache updates
    and flash-decoding loop, written as memref loads and stores in host
    code, run as one-thread kernels (quilt-gpu-host-accesses-to-kernels),
    the products as Quilt's kernels."""
    from decode_step import decode_step_mlir, random_inputs, reference
    del rng  # each position has its own seed
    text = decode_step_mlir()
    step = quilt.load(compile_for(target, text), "decode_step", source=text)
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


CHECKS = {check.__name__: check for check in (
    softmax_and_layernorm, strided_copies_as_kernels, loop_and_own_buffers,
    epilogues_fused_on_buffers, f64_products, products_written_every_way,
    decode_step_with_cache_updates)}


def main(argv):
    """python -m emulated_programs TARGET CHECK: one check on the emulated
    TARGET, in this process."""
    target, check = argv
    quilt.use_emulator(target)
    CHECKS[check](target, np.random.default_rng(20240601))
    print(check, "passed on", target)


if __name__ == "__main__":
    main(sys.argv[1:])
