"""quilt.explain: the cost model's choice and its reasons, as quiltc's JSON."""

import json
import subprocess

import pytest

import quilt
from conftest import tools_dir

WORKLOAD = "matmul f16 M=1000 N=768 K=3072"


def test_explain_shape():
    report = quilt.explain(WORKLOAD, "h100", top=3)
    assert set(report) >= {"workload", "target", "policy", "chosen", "why",
                           "candidates"}
    assert report["target"] == "h100"
    assert report["policy"] == "cost-model"
    assert report["workload"]["text"] == WORKLOAD
    assert (report["workload"]["m"], report["workload"]["n"],
            report["workload"]["k"]) == (1000, 768, 3072)
    assert len(report["candidates"]) == 3
    for candidate in report["candidates"]:
        assert {"index", "config", "predicted_us", "terms"} <= set(candidate)
        assert candidate["predicted_us"] > 0
        assert candidate["config"]["inst"] in ("wgmma", "mma_sync_f16",
                                               "simt_fma")
        assert isinstance(candidate["terms"], dict) and candidate["terms"]
    # Ranked best first; the chosen one is the cheapest.
    predicted = [c["predicted_us"] for c in report["candidates"]]
    assert predicted == sorted(predicted)
    assert report["chosen"]["index"] == report["candidates"][0]["index"]
    assert report["why"]


def test_explain_shows_every_candidate_by_default():
    everything = quilt.explain(WORKLOAD, "h100")
    assert len(everything["candidates"]) > 3


def test_explain_matches_quiltc_json():
    tools = tools_dir()
    if tools is None or not (tools / "quiltc").exists():
        pytest.skip("QUILT_TOOLS_DIR does not hold quiltc")
    out = subprocess.run(
        [str(tools / "quiltc"), "explain", "--target", "mi300x", "--top", "4",
         "--json", "matmul f32 M=127 N=255 K=63"],
        check=True, capture_output=True, text=True).stdout
    assert quilt.explain("matmul f32 M=127 N=255 K=63", "mi300x",
                         top=4) == json.loads(out)


def test_explain_policies():
    pad = quilt.explain("matmul f32 M=127 N=255 K=63", "host", policy="pad")
    assert pad["policy"] == "pad"
    fixed = quilt.explain("matmul f32 M=127 N=255 K=63", "host",
                          policy="fixed=0")
    assert fixed["chosen"]["index"] == 0


def test_explain_errors():
    assert issubclass(quilt.Error, RuntimeError)
    with pytest.raises(quilt.Error, match="unknown target 'h900'"):
        quilt.explain(WORKLOAD, "h900")
    with pytest.raises(quilt.Error, match="missing K="):
        quilt.explain("matmul f16 M=1 N=2", "h100")
    with pytest.raises(quilt.Error, match="unknown policy"):
        quilt.explain(WORKLOAD, "h100", policy="fastest")
    with pytest.raises(quilt.Error, match="top"):
        quilt.explain(WORKLOAD, "h100", top=-1)


def test_explain_with_a_tuning_db(tmp_path):
    db = tmp_path / "tuned.db"
    db.write_text("quilt-tuning-db 1\ntarget = host-avx512\n\n"
                  "[matmul f32]\nm = 100..140\nn = 768\nk = 768\n"
                  "config = 48x256x128 t1 w1x1 tt12x32 v16 s1 cpu_fma\n")
    inside = quilt.explain("matmul f32 M=128 N=768 K=768", "host-avx512",
                           tuning_db=str(db))
    assert inside["chosen"]["config"]["str"] == \
        "48x256x128 t1 w1x1 tt12x32 v16 s1 cpu_fma"
    assert inside["chosen"]["tuned"] == {
        "source": f"{db}:4", "region": "b=1 m=100..140 n=768 k=768"}
    assert inside["why"].startswith("tuning database: ")
    outside = quilt.explain("matmul f32 M=200 N=768 K=768", "host-avx512",
                            tuning_db=str(db))
    assert "tuned" not in outside["chosen"]
    with pytest.raises(quilt.Error, match=r"tuned\.db:2: field 'target'"):
        quilt.explain("matmul f32 M=128 N=768 K=768", "host-avx2",
                      tuning_db=str(db))
    # Tuned on one thread (the default): not for code that runs on two.
    with pytest.raises(quilt.Error, match=r"field 'threads': the database "
                       r"was tuned for 1 thread\(s\), this compilation runs 2"):
        quilt.explain("matmul f32 M=128 N=768 K=768", "host-avx512",
                      tuning_db=str(db), threads=2)


def test_explain_prices_cpu_products_on_threads():
    # As code compiled with threads=N dispatches: one core by default. On
    # the 40-core host-avx512 this P x V product takes 8x32 register
    # blocks on one core and 6x64 blocks on two (quiltc-explain.test).
    product = "batch_matmul f32 B=12 M=785 N=64 K=785"
    one = quilt.explain(product, "host-avx512", top=1)
    two = quilt.explain(product, "host-avx512", top=1, threads=2)
    assert (one["cores"], two["cores"]) == (1, 2)
    assert one["chosen"]["config"]["thread_tile_n"] == 32
    assert two["chosen"]["config"]["thread_tile_n"] == 64
    # A GPU is priced whole.
    assert "cores" not in quilt.explain(WORKLOAD, "h100", top=1, threads=2)
    with pytest.raises(Exception, match="threads must be >= 1"):
        quilt.explain(product, "host-avx512", threads=0)
