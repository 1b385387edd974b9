"""quilt.targets: the target database as dicts."""

import pytest

import quilt
from conftest import SOURCE_DIR


def test_builtin_targets_are_listed():
    names = [t["name"] for t in quilt.targets()]
    for name in ("h100", "a100", "v100", "rtx4090", "mi300x", "mi250x",
                 "rx7900xtx", "host", "host-avx512", "host-avx2", "host-neon"):
        assert name in names


def test_target_fields():
    targets = {t["name"]: t for t in quilt.targets()}
    h100 = targets["h100"]
    assert h100["vendor"] == "nvidia"
    assert h100["chip"].startswith("sm_90")
    assert h100["is_gpu"]
    assert h100["compute_units"] > 100
    assert h100["warp_size"] == 32
    assert h100["mem_bandwidth_gbs"] > 1000
    assert h100["peak_tflops"]["wgmma"] > h100["peak_tflops"]["simt_fma"] > 0
    assert set(h100["calibration"]) == {"compute_efficiency",
                                        "memory_efficiency",
                                        "launch_overhead_us",
                                        "tile_overhead_us"}
    mi300x = targets["mi300x"]
    assert mi300x["vendor"] == "amd" and mi300x["chip"] == "gfx942"
    host = targets["host"]
    assert host["vendor"] == "cpu" and not host["is_gpu"]
    assert host["vector_bits"] in (128, 256, 512)
    assert list(host["peak_tflops"]) == ["cpu_fma"]


def test_target_file_adds_targets():
    db = SOURCE_DIR / "test/Dialect/UKernel/Inputs/lab-targets.db"
    targets = {t["name"]: t for t in quilt.targets(target_file=str(db))}
    assert targets["h100-pcie"]["compute_units"] == 114
    assert targets["h100-pcie"]["mem_bandwidth_gbs"] == 2000
    # The built-in SXM part is still there, unchanged.
    assert targets["h100"]["compute_units"] == 132


def test_missing_target_file_is_an_error(tmp_path):
    with pytest.raises(quilt.Error, match="nope.db"):
        quilt.targets(target_file=str(tmp_path / "nope.db"))
