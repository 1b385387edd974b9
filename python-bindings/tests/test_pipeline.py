"""quilt.run_pipeline: quilt-opt --pass-pipeline as a function."""

import pytest

import quilt
from conftest import MATMUL_TENSOR

FRONT_END = ("builtin.module(ukernel-attach-target{target=h100},"
             "convert-linalg-to-ukernel)")


def test_front_end_forms_a_dispatch():
    out = quilt.run_pipeline(MATMUL_TENSOR, FRONT_END)
    assert "ukernel.target" in out and "h100" in out
    assert "ukernel.dispatch" in out
    assert "linalg.matmul" not in out
    # The printed module parses again.
    assert quilt.run_pipeline(out, "builtin.module(canonicalize)")


def test_nested_pipeline():
    out = quilt.run_pipeline(MATMUL_TENSOR,
                             "builtin.module(func.func(canonicalize))")
    assert "linalg.matmul" in out


def test_host_pipeline_reaches_llvm():
    out = quilt.run_pipeline(
        MATMUL_TENSOR, "builtin.module(quilt-lower-to-host{target=host})")
    assert "llvm.func @matmul" in out


def test_errors():
    with pytest.raises(quilt.Error, match="no-such-pass"):
        quilt.run_pipeline(MATMUL_TENSOR, "builtin.module(no-such-pass)")
    with pytest.raises(quilt.Error, match="unknown target"):
        quilt.run_pipeline(MATMUL_TENSOR,
                           "builtin.module(ukernel-attach-target{target=x})")
    with pytest.raises(quilt.Error, match="error:"):
        quilt.run_pipeline("func.func @f( {", "builtin.module(canonicalize)")
