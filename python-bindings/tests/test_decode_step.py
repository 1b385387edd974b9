"""A two-layer transformer decode step in an exporter's style (decode_step.py:
KV-cache update by memref stores through bufferization.to_buffer, a
flash-decoding loop reading the caches through the same buffers, RMSNorm,
RoPE, SiLU FFN), compiled by Quilt for the host and compared with NumPy:
the logits, and each returned cache with its new row at the position.

The first version of this test failed: the canonicalizer ahead of
bufferization turned the attention loop's loads of the caches into reads
of the caches as they were before the update (issue 36)."""

import numpy as np
import pytest

import quilt
from decode_step import (CACHE, LAYERS, argument_names, decode_step_mlir,
                         random_inputs, reference)


@pytest.fixture(scope="module")
def decode_step(tmp_path_factory):
    # What is tested is the program around the products (the cache updates
    # and the loop reading them); two candidates per dispatch keep its host
    # build short (every host candidate is checked in
    # test_whole_programs.py).
    source = decode_step_mlir()
    path = tmp_path_factory.mktemp("decode") / "decode_step.so"
    library = quilt.compile(source, emit="shared", max_candidates=2,
                            output=str(path))
    return quilt.load(library, "decode_step", source=source)


@pytest.mark.parametrize("pos", [0, 1, 7, CACHE - 1])
def test_decode_step_matches_numpy(decode_step, pos):
    rng = np.random.default_rng(1000 + pos)
    x, values = random_inputs(rng, pos)
    results = decode_step(x, pos, *values)
    expected = reference(x, pos, values)
    assert len(results) == 1 + 2 * LAYERS
    logits = results[0]
    np.testing.assert_allclose(logits, expected[0], rtol=2e-4, atol=2e-4)
    assert int(np.argmax(logits)) == int(np.argmax(expected[0]))
    for got, want in zip(results[1:], expected[1:]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_the_caller_caches_are_not_written(decode_step):
    """Tensor arguments are values: the caller's caches keep their rows."""
    rng = np.random.default_rng(7)
    x, values = random_inputs(rng, 3)
    before = [v.copy() for v in values]
    decode_step(x, 3, *values)
    for (name, _), got, want in zip(argument_names(), values, before):
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_products_are_dispatches():
    """Quilt takes over every product of the step: 7 per layer and the
    vocabulary projection."""
    front_end = quilt.run_pipeline(
        decode_step_mlir(),
        "builtin.module(ukernel-attach-target{target=host},"
        "convert-linalg-to-ukernel)")
    assert front_end.count("ukernel.dispatch matmul") == 7 * LAYERS + 1
    assert "linalg.matmul" not in front_end
