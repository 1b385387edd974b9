"""quilt.compile: the quiltc pipeline as a function."""

import os

import pytest

import quilt
from conftest import MATMUL_MEMREF, MATMUL_TENSOR


def test_emit_mlir_is_the_llvm_dialect():
    text = quilt.compile(MATMUL_TENSOR, emit="mlir")
    assert "llvm.func @matmul" in text
    assert "llvm.func @_mlir_ciface_matmul" in text
    assert "linalg." not in text


def test_emit_llvm_and_asm():
    llvm = quilt.compile(MATMUL_MEMREF, emit="llvm")
    assert "define void @_mlir_ciface_matmul(" in llvm
    asm = quilt.compile(MATMUL_MEMREF, target="host-avx2", emit="asm")
    assert "_mlir_ciface_matmul:" in asm
    assert "vfmadd" in asm


def test_emit_obj_is_bytes():
    obj = quilt.compile(MATMUL_MEMREF, emit="obj")
    assert isinstance(obj, bytes) and obj.startswith(b"\x7fELF")


def test_emit_shared_writes_the_library(tmp_path):
    out = tmp_path / "m.so"
    assert quilt.compile(MATMUL_MEMREF, emit="shared",
                         output=str(out)) == str(out)
    assert out.stat().st_size > 0
    # Without an output, a temporary file the caller owns.
    path = quilt.compile(MATMUL_MEMREF, emit="shared")
    assert os.path.exists(path)
    os.remove(path)


def test_threads_parallelize_and_link_libomp(tmp_path):
    # Two candidates: what is checked is the threading, which every
    # candidate gets alike (threads.test runs multi-threaded kernels).
    few = dict(max_candidates=2)
    assert "omp.parallel" not in quilt.compile(MATMUL_MEMREF, emit="mlir",
                                               threads=1, **few)
    out = tmp_path / "m.so"
    quilt.compile(MATMUL_MEMREF, emit="shared", output=str(out), threads=2,
                  **few)
    # The library calls LLVM's OpenMP runtime, which it names as a need.
    assert b"libomp.so" in out.read_bytes()
    assert "__kmpc_fork_call" in quilt.compile(MATMUL_MEMREF, emit="llvm",
                                               threads=2, **few)
    with pytest.raises(quilt.Error, match="--threads applies to CPU targets"):
        quilt.compile(MATMUL_MEMREF, target="h100", emit="ptx", threads=2)


def test_output_file_for_text(tmp_path):
    out = tmp_path / "m.ll"
    text = quilt.compile(MATMUL_MEMREF, emit="llvm", output=str(out))
    assert out.read_text() == text


def test_both_policy_spellings():
    a = quilt.compile(MATMUL_MEMREF, policy="cost-model")
    b = quilt.compile(MATMUL_MEMREF, policy="cost_model")
    assert a == b


def test_bad_ir_reports_the_diagnostic():
    with pytest.raises(quilt.Error) as error:
        quilt.compile("func.func @f() {\n  %x = arith.bogus\n}\n",
                      source_name="bad.mlir")
    message = str(error.value)
    assert "bad.mlir:2:" in message and "error:" in message


def test_verifier_errors_are_reported():
    bad = """
    func.func @f(%a: memref<?x?xf32>, %c: memref<?xf32>) {
      linalg.matmul ins(%a, %a : memref<?x?xf32>, memref<?x?xf32>)
                    outs(%c : memref<?xf32>)
      return
    }
    """
    with pytest.raises(quilt.Error, match="error:"):
        quilt.compile(bad)


def test_unknown_targets_and_device_code_for_a_cpu():
    with pytest.raises(quilt.Error, match="unknown target 'tpu'.*h100"):
        quilt.compile(MATMUL_MEMREF, target="tpu")
    with pytest.raises(quilt.Error, match="is device code, but target 'host' is a CPU"):
        quilt.compile(MATMUL_MEMREF, target="host", emit="ptx")


def test_bad_options():
    with pytest.raises(quilt.Error, match="unknown emit kind 'wasm'"):
        quilt.compile(MATMUL_MEMREF, emit="wasm")
    with pytest.raises(quilt.Error):
        quilt.compile(MATMUL_MEMREF, policy="fastest")


def test_emit_ptx_for_an_nvidia_gpu():
    ptx = quilt.compile(MATMUL_MEMREF, target="a100", emit="ptx")
    assert ".target sm_80" in ptx
    assert ".visible .entry quilt_simt_fma_" in ptx
    with pytest.raises(quilt.Error, match="is an NVIDIA GPU: use --emit=ptx"):
        quilt.compile(MATMUL_MEMREF, target="a100", emit="hsaco")


def test_kernel_cache_keeps_each_kernel_and_gives_the_same_ptx(tmp_path):
    cache = tmp_path / "kernels"
    options = dict(target="a100", emit="ptx", max_candidates=2)
    cold = quilt.compile(MATMUL_MEMREF, kernel_cache=str(cache), **options)
    entries = sorted(cache.glob("*.ptx"))
    assert len(entries) == cold.count(".visible .entry ")
    warm = quilt.compile(MATMUL_MEMREF, kernel_cache=str(cache), **options)
    assert warm == cold
    # The warm compile read the entries: a mark added to each comes back.
    for entry in entries:
        with open(entry, "a") as out:
            out.write("\n.global .align 1 .b8 from_the_cache;\n")
    marked = quilt.compile(MATMUL_MEMREF, kernel_cache=str(cache), **options)
    assert marked.count(".global .align 1 .b8 from_the_cache;") == 1
    with pytest.raises(quilt.Error, match="cannot create the kernel cache"):
        quilt.compile(MATMUL_MEMREF, kernel_cache=str(entries[0] / "x"),
                      **options)


def test_emit_isa_for_an_amd_gpu():
    isa = quilt.compile(MATMUL_MEMREF, target="mi300x", emit="isa")
    assert 'amdgcn-amd-amdhsa--gfx942' in isa
    assert "global_load_dwordx4" in isa


TUNING_DB = """quilt-tuning-db 1
target = host
threads = 1

[matmul f32]
m = 100..140
n = 700..800
k = 700..800
config = 64x256x128 t1 w1x1 tt4x16 v8 s1 cpu_fma
"""


def test_tuning_db_adds_its_winner_where_it_was_tuned(tmp_path):
    import numpy as np
    db = tmp_path / "tuned.db"
    db.write_text(TUNING_DB)
    text = quilt.compile(MATMUL_TENSOR, emit="mlir", tuning_db=str(db))
    assert "candidate 64x256x128 t1 w1x1 tt4x16 v8 s1 cpu_fma" in text
    assert f"b=1 m=100..140 n=700..800 k=700..800 from {db}:5" in text
    # The library runs it for a shape in the region, and computes right.
    path = quilt.compile(MATMUL_TENSOR, emit="shared", tuning_db=str(db))
    try:
        matmul = quilt.load(path, "matmul", source=MATMUL_TENSOR)
        rng = np.random.default_rng(7)
        a = rng.standard_normal((131, 701), dtype=np.float32)
        b = rng.standard_normal((701, 797), dtype=np.float32)
        np.testing.assert_allclose(matmul(a, b), a @ b, rtol=1e-4, atol=1e-3)
    finally:
        os.remove(path)


def test_bad_tuning_db_names_file_line_and_field(tmp_path):
    db = tmp_path / "stale.db"
    db.write_text(TUNING_DB.replace("quilt-tuning-db 1", "quilt-tuning-db 9"))
    with pytest.raises(quilt.Error, match=r"stale\.db:1: field 'version'"):
        quilt.compile(MATMUL_TENSOR, emit="mlir", tuning_db=str(db))
