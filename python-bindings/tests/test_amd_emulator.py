"""quilt.load on AMD GPU builds, run on the AMDGCN emulator
(docs/gpu-emulator.md).

The HIP emulator answers as one AMD target per process (the one named when
the HIP runtime first opens it), and the targets' cases may share a pytest
worker: each case runs in a fresh interpreter."""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from emulated_programs import CHECKS

TESTS_DIR = pathlib.Path(__file__).resolve().parent

SCRIPT = textwrap.dedent('''
    import numpy as np
    import quilt

    SOURCE = """
    func.func @mm(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
      %r = linalg.matmul ins(%a, %b : tensor<?x?xf16>, tensor<?x?xf16>)
                         outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
      return %r : tensor<?x?xf32>
    }
    """
    target = "TARGET"
    print(quilt.use_emulator(target).rsplit("/", 1)[1])
    library = quilt.compile(SOURCE, target=target, emit="shared",
                            device_format="bin")
    mm = quilt.load(library, "mm", source=SOURCE)
    rng = np.random.default_rng(7)
    for m, n, k in [(0, 3, 5), (1, 1, 1), (37, 29, 70), (65, 129, 33)]:
        a = rng.standard_normal((m, k)).astype(np.float16)
        b = rng.standard_normal((k, n)).astype(np.float16)
        c = rng.standard_normal((m, n)).astype(np.float32)
        expected = a.astype(np.float64) @ b.astype(np.float64) + c
        np.testing.assert_allclose(mm(a, b, c), expected, rtol=1e-4,
                                   atol=1e-4)
        print("ok", m, n, k)
''')


@pytest.mark.parametrize("target", ["mi300x", "rx7900xtx"])
def test_tensor_matmul_on_the_amd_emulator(target):
    run = subprocess.run([sys.executable, "-c", SCRIPT.replace("TARGET", target)],
                         capture_output=True, text=True, env=os.environ)
    if "does not exist" in run.stderr:
        pytest.skip(run.stderr.strip().splitlines()[-1])
    assert run.returncode == 0, run.stderr
    lines = run.stdout.split()
    assert lines[0] == "libquilt_hip_emulator.so"
    assert run.stdout.count("ok") == 4


BOTH_VENDORS = textwrap.dedent('''
    import numpy as np
    import quilt

    SOURCE = """
    func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
      %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                         outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
      return %r : tensor<?x?xf32>
    }
    """
    for target in ("h100", "mi300x"):
        quilt.use_emulator(target)
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(s).astype(np.float32)
               for s in ((9, 31), (31, 7), (9, 7)))
    expected = a.astype(np.float64) @ b.astype(np.float64) + c
    for target, device_format in (("h100", "isa"), ("mi300x", "bin")):
        library = quilt.compile(SOURCE, target=target, emit="shared",
                                device_format=device_format,
                                max_candidates=2)
        mm = quilt.load(library, "mm", source=SOURCE)
        np.testing.assert_allclose(mm(a, b, c), expected, rtol=1e-4,
                                   atol=1e-4)
        print("ok", target)
''')


def test_one_process_emulates_both_vendors():
    """Each vendor's runtime opens its own emulator (QUILT_CUDA_DRIVER,
    QUILT_HIP_DRIVER), so an H100 and an MI300X library run side by side."""
    run = subprocess.run([sys.executable, "-c", BOTH_VENDORS],
                         capture_output=True, text=True, env=os.environ)
    if "does not exist" in run.stderr:
        pytest.skip(run.stderr.strip().splitlines()[-1])
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["ok", "h100", "ok", "mi300x"]


def test_use_emulator_refuses_a_cpu_target():
    import quilt
    with pytest.raises(quilt.Error, match="not a GPU target"):
        quilt.use_emulator("host")


@pytest.mark.parametrize("check", sorted(CHECKS))
@pytest.mark.parametrize("target", ["mi300x", "rx7900xtx"])
def test_whole_program_on_the_amd_emulator(target, check):
    """emulated_programs.py's whole programs (softmax, layernorm, strided
    copies, loops, own buffers, fused epilogues, f64, batched products
    written every way, a decode step with cache updates), compiled by
    quilt-lower-to-rocdl for `target` and run on the AMDGCN emulator."""
    run = subprocess.run([sys.executable, "-m", "emulated_programs", target,
                          check], capture_output=True, text=True,
                         cwd=TESTS_DIR, env=os.environ)
    if "does not exist" in run.stderr:
        pytest.skip(run.stderr.strip().splitlines()[-1])
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"{check} passed on {target}" in run.stdout
