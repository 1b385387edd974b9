"""quilt.load on GPU builds, run on the PTX emulator (docs/gpu-emulator.md).

The GPU runtime opens its driver at the first GPU call of the process, so
quilt.use_emulator() comes first; nothing else in this suite calls a GPU.
"""

import numpy as np
import pytest

import quilt
from conftest import SHAPES
from emulated_programs import CHECKS

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


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_whole_program(emulator, rng, check):
    """The whole programs of emulated_programs.py on the emulated H100 (the
    AMD targets run them in test_amd_emulator.py)."""
    CHECKS[check]("h100", rng)
