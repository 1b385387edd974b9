"""The learned residual model: what scikit-learn learns is what Quilt evaluates.

A gradient-boosted model fitted with scikit-learn on the features
quilt.explain reports is exported with bench/host/train_residual.py; the
C++ library's corrected predictions (explain's learned_us) must equal
scikit-learn's own predictions on the same features, and the learned pick
must be the candidate with the lowest of them.
"""

import importlib.util
import math
import re

import numpy as np
import pytest

import quilt
from conftest import MATMUL_TENSOR, SOURCE_DIR

sklearn_ensemble = pytest.importorskip("sklearn.ensemble")

HAND_WRITTEN = (SOURCE_DIR / "test" / "Conversion" / "LinalgToUKernel" /
                "Inputs" / "slow-narrow.qrm")
WORKLOADS = ["matmul f32 M=1 N=4096 K=4096", "matmul f32 M=37 N=45 K=29",
             "matmul f32 M=700 N=3072 K=768", "matmul f16 M=128 N=768 K=768",
             "batch_matmul f32 B=96 M=197 N=197 K=64",
             "batch_matmul f32 B=12 M=5 N=64 K=5"]


def load_trainer():
    spec = importlib.util.spec_from_file_location(
        "train_residual", SOURCE_DIR / "bench" / "host" / "train_residual.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def features_of(report, names):
    return [[c["residual_features"][n] for n in names]
            for c in report["candidates"]]


def test_scikit_learn_export_evaluates_identically(tmp_path):
    trainer = load_trainer()
    names = trainer.read_model(str(HAND_WRITTEN)).names
    # Features of real candidates on real shapes, from the library itself.
    x = []
    for w in WORKLOADS:
        x += features_of(quilt.explain(w, "host-avx512",
                                       residual_model=str(HAND_WRITTEN)),
                         names)
    x = np.array(x)
    # A residual that depends on knobs, shape and model terms at once.
    col = {n: i for i, n in enumerate(names)}
    y = (0.3 * (x[:, col["thread_tile_m"]] <= 4) -
         0.5 * x[:, col["m_remainder"]] +
         0.1 * x[:, col["log2_k"]] * x[:, col["pack_share"]])
    fitted = sklearn_ensemble.GradientBoostingRegressor(
        n_estimators=40, max_depth=3, learning_rate=0.1,
        random_state=0).fit(x, y)
    model = trainer.Model(names, trainer.Ensemble.from_sklearn(fitted))
    path = tmp_path / "fitted.qrm"
    model.write(str(path))
    # The trainer's own evaluator reads the file back the same way.
    np.testing.assert_allclose(trainer.read_model(str(path)).body.evaluate(x),
                               fitted.predict(x), rtol=0, atol=1e-12)

    for w in WORKLOADS:
        report = quilt.explain(w, "host-avx512", residual_model=str(path))
        expected = fitted.predict(np.array(features_of(report, names)))
        for candidate, r in zip(report["candidates"], expected):
            assert candidate["learned_us"] == pytest.approx(
                candidate["predicted_us"] * math.exp(r), rel=1e-7)
        learned = [c["learned_us"] for c in report["candidates"]]
        best = report["candidates"][int(np.argmin(learned))]
        assert report["learned"]["index"] == best["index"]
        assert report["learned"]["source"] == str(path)


def test_explain_without_a_model_has_no_learned_fields():
    report = quilt.explain(WORKLOADS[1], "host-avx512")
    assert "learned" not in report
    assert all("learned_us" not in c for c in report["candidates"])


def test_compile_prunes_with_the_model():
    # The hand-written model makes every register block of 1 or 2 rows 16x
    # slower than the analytic model says: pruning keeps fewer of them. The
    # compiled selection spec names every candidate ("... tt2x64 ...").
    def narrow_rows(text):
        return len(set(re.findall(r"\btt[12]x[0-9]+", text)))

    plain = quilt.compile(MATMUL_TENSOR, target="host-avx512", emit="mlir")
    learned = quilt.compile(MATMUL_TENSOR, target="host-avx512", emit="mlir",
                            residual_model=str(HAND_WRITTEN))
    assert narrow_rows(learned) < narrow_rows(plain)


def test_bad_models_are_errors_naming_the_file(tmp_path):
    with pytest.raises(quilt.Error, match="cannot read the residual model"):
        quilt.explain(WORKLOADS[0], "host", residual_model="/no/such.qrm")
    stale = tmp_path / "stale.qrm"
    stale.write_text("quilt-residual-model 1\nfeatures 3\n")
    with pytest.raises(quilt.Error, match=r"stale\.qrm:2: the model uses 3 "
                       "features; this Quilt computes 40"):
        quilt.explain(WORKLOADS[0], "host", residual_model=str(stale))
    with pytest.raises(quilt.Error, match=r"stale\.qrm:2"):
        quilt.compile(MATMUL_TENSOR, emit="mlir", residual_model=str(stale))
