#!/usr/bin/env python3
"""Train, score and transfer Quilt's learned residual cost model.

The residual model (include/CostModel/ResidualModel.h) corrects the analytic
model's prediction by exp(r), where r = body(x) + head[target](x) learns
log(measured / predicted) from the features quilt-bench writes next to every
measurement (`quilt-bench --model-sample N --measurements OUT.csv`). Both
parts are gradient-boosted regression trees (scikit-learn); the file this
writes is the text format the C++ library reads (docs/tuning.md).

  train     fit the body on every CSV given (all targets pooled), then a head
            per target on what the body leaves; write the model file.
  score     the analytic model against the learned one on held-out CSVs:
            per target, the geomean regret of each one's pick and the mean
            rank correlation of its predictions with the measured times.
  transfer  the multi-task experiment: a body from the source target's
            measurements, then heads fitted to n measurements of the new
            target, scored on the new target's held-out shapes, against a
            model trained on those n measurements alone.

Needs numpy and scikit-learn (Debian: python3-sklearn).
"""

import argparse
import csv
import math
import random
import sys
from collections import defaultdict

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor

FORMAT = "quilt-residual-model 1"
# Columns before the features; everything after predicted_us is a feature.
FIRST_FEATURE_AFTER = "predicted_us"

# Chosen by 4-fold cross-validation over the training workloads of both
# host targets, grouped by workload (docs/cost-model.md): depth 2-5,
# 150-600 trees, leaves of 5-20 rows, squared, absolute and Huber loss, and
# weighting rows towards each workload's fastest candidates all cut the
# regret about alike; this was best on both targets. The Huber loss keeps
# a candidate that one noisy timing put 2x off from steering the trees.
BODY = dict(loss="huber", alpha=0.8, n_estimators=600, max_depth=5,
            learning_rate=0.05, subsample=0.8, min_samples_leaf=10,
            random_state=0)
HEAD = dict(loss="huber", alpha=0.8, learning_rate=0.1, subsample=0.8,
            random_state=0)


def head_params(rows):
    """A head grows with the measurements it has: a few shallow trees for
    a handful (mostly a bias), up to the body's size for thousands."""
    return dict(HEAD, n_estimators=int(np.clip(rows // 8, 10, 300)),
                max_depth=2 if rows < 256 else 4,
                min_samples_leaf=max(3, rows // 200))


class Rows:
    """Measurements with features, from one or more quilt-bench CSVs. The
    same candidate measured on the same workload in several files (repeated
    runs) becomes one row with the geometric mean of the times."""

    def __init__(self, paths):
        self.names = None
        self.keys, self.targets, self.configs = [], [], []
        predicted, features = [], []
        seen, logs = {}, []
        for path in paths:
            with open(path) as f:
                reader = csv.reader(line for line in f
                                    if not line.startswith("#"))
                header = next(reader)
                if FIRST_FEATURE_AFTER not in header:
                    sys.exit(f"{path}: no '{FIRST_FEATURE_AFTER}' column: "
                             "measure with a quilt-bench that writes the "
                             "residual features")
                first = header.index(FIRST_FEATURE_AFTER) + 1
                names = header[first:]
                if self.names is None:
                    self.names = names
                elif names != self.names:
                    sys.exit(f"{path}: its features differ from "
                             f"{paths[0]}'s")
                col = {name: i for i, name in enumerate(header)}
                for row in reader:
                    key = tuple(row[col[c]] for c in
                                ("target", "op", "dtype", "b", "m", "n", "k"))
                    log_us = math.log(max(float(row[col["measured_us"]]),
                                          1e-3))
                    repeat = seen.get((key, row[col["config"]]))
                    if repeat is not None:
                        logs[repeat].append(log_us)
                        continue
                    seen[(key, row[col["config"]])] = len(self.keys)
                    logs.append([log_us])
                    self.keys.append(key)
                    self.targets.append(row[col["target"]])
                    self.configs.append(row[col["config"]])
                    predicted.append(float(row[col["predicted_us"]]))
                    features.append([float(v) for v in row[first:]])
        self.measured = np.array([math.exp(np.mean(l)) for l in logs])
        self.predicted = np.array(predicted)
        self.x = np.array(features)
        # The regression target: how far off the analytic model is.
        self.y = np.log(self.measured / np.maximum(self.predicted, 1e-9))

    def __len__(self):
        return len(self.keys)

    def subset(self, index):
        out = Rows([])
        out.names = self.names
        for attr in ("keys", "targets", "configs"):
            setattr(out, attr, [getattr(self, attr)[i] for i in index])
        for attr in ("measured", "predicted", "x", "y"):
            setattr(out, attr, getattr(self, attr)[index])
        return out

    def workloads(self):
        """Row indices grouped by workload (target, op, dtype, shape)."""
        groups = defaultdict(list)
        for i, key in enumerate(self.keys):
            groups[key].append(i)
        return groups


class Ensemble:
    """A bias plus trees, evaluated the way the C++ library does."""

    def __init__(self, bias=0.0, trees=()):
        self.bias, self.trees = bias, list(trees)

    @staticmethod
    def from_sklearn(model):
        trees = []
        for est in model.estimators_[:, 0]:
            t = est.tree_
            nodes = []
            for i in range(t.node_count):
                if t.children_left[i] < 0:
                    nodes.append(("leaf", model.learning_rate *
                                  float(t.value[i, 0, 0])))
                else:
                    nodes.append(("node", int(t.feature[i]),
                                  float(t.threshold[i]),
                                  int(t.children_left[i]),
                                  int(t.children_right[i])))
            trees.append(nodes)
        return Ensemble(float(model.init_.constant_.ravel()[0]), trees)

    def evaluate(self, x):
        # Features compare at single precision, as scikit-learn's trees do.
        x = x.astype(np.float32).astype(np.float64)
        out = np.full(len(x), self.bias)
        for nodes in self.trees:
            for r in range(len(x)):
                i = 0
                while nodes[i][0] == "node":
                    _, f, threshold, left, right = nodes[i]
                    i = left if x[r, f] <= threshold else right
                out[r] += nodes[i][1]
        return out

    def write(self, out, header):
        out.write(f"{header} bias={self.bias!r} trees={len(self.trees)}\n")
        for nodes in self.trees:
            out.write(f"tree {len(nodes)}\n")
            for node in nodes:
                if node[0] == "leaf":
                    out.write(f"leaf {node[1]!r}\n")
                else:
                    _, f, threshold, left, right = node
                    out.write(f"node {f} {threshold!r} {left} {right}\n")


class Model:
    def __init__(self, names, body, heads=None, trained_on=""):
        self.names, self.body = names, body
        self.heads = heads or {}
        self.trained_on = trained_on

    def log_residual(self, rows):
        r = self.body.evaluate(rows.x)
        for target, head in self.heads.items():
            mask = np.array([t == target for t in rows.targets])
            if mask.any():
                r[mask] += head.evaluate(rows.x[mask])
        return r

    def write(self, path):
        with open(path, "w") as out:
            out.write(FORMAT + "\n")
            if self.trained_on:
                out.write(f"trained_on {self.trained_on}\n")
            out.write(f"features {len(self.names)}\n")
            for name in self.names:
                out.write(f"feature {name}\n")
            self.body.write(out, "body")
            for target, head in sorted(self.heads.items()):
                head.write(out, f"head {target}")


def fit(x, y, params):
    return Ensemble.from_sklearn(GradientBoostingRegressor(**params).fit(x, y))


def fit_head(body, rows):
    """A target's head: small trees on what the body leaves of its rows."""
    if len(rows) == 0:
        return None
    left = rows.y - body.evaluate(rows.x)
    params = head_params(len(rows))
    if len(rows) < 2 * params["min_samples_leaf"]:
        return Ensemble(float(np.median(left)))
    return fit(rows.x, left, params)


def rank(values):
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values))
    return ranks


def spearman(a, b):
    if len(a) < 2:
        return 0.0
    ra, rb = rank(a), rank(b)
    if ra.std() == 0 or rb.std() == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])


def score(rows, learned_us):
    """Per target: workloads, the analytic and learned geomean regret of the
    pick (the measured time of the candidate each ranks first over the
    fastest's) and mean rank correlation."""
    out = defaultdict(lambda: defaultdict(list))
    for key, index in rows.workloads().items():
        measured = rows.measured[index]
        best = measured.min()
        if best <= 0:
            continue
        target = key[0]
        for name, prediction in (("analytic", rows.predicted[index]),
                                 ("learned", learned_us[index])):
            pick = measured[int(np.argmin(prediction))]
            out[target][name + "_regret"].append(pick / best)
            out[target][name + "_spearman"].append(
                spearman(prediction, measured))
    summary = {}
    for target, lists in out.items():
        summary[target] = {
            "workloads": len(lists["analytic_regret"]),
            **{k: (math.exp(np.mean(np.log(v))) - 1.0 if "regret" in k
                   else float(np.mean(v))) for k, v in lists.items()}}
    return summary


def learned_us(model, rows):
    return rows.predicted * np.exp(model.log_residual(rows))


def print_score(summary):
    print(f"{'target':<14} {'workloads':>9} {'regret analytic':>16} "
          f"{'regret learned':>15} {'spearman analytic':>18} "
          f"{'spearman learned':>17}")
    for target, s in sorted(summary.items()):
        print(f"{target:<14} {s['workloads']:>9} "
              f"{100 * s['analytic_regret']:>15.1f}% "
              f"{100 * s['learned_regret']:>14.1f}% "
              f"{s['analytic_spearman']:>18.2f} {s['learned_spearman']:>17.2f}")


def read_model(path):
    """The Python side of the file format (for score and the tests)."""
    with open(path) as f:
        lines = [l.split("#")[0].strip() for l in f]
    lines = [l for l in lines if l]
    if lines[0] != FORMAT:
        sys.exit(f"{path}: not a '{FORMAT}' file")
    pos, trained_on = 1, ""
    if lines[pos].startswith("trained_on"):
        trained_on = lines[pos][len("trained_on"):].strip()
        pos += 1
    count = int(lines[pos].split()[1])
    names = [l.split()[1] for l in lines[pos + 1:pos + 1 + count]]
    pos += 1 + count
    body, heads = None, {}
    while pos < len(lines):
        words = lines[pos].split()
        fields = dict(w.split("=") for w in words if "=" in w)
        pos += 1
        trees = []
        for _ in range(int(fields["trees"])):
            n = int(lines[pos].split()[1])
            nodes = []
            for l in lines[pos + 1:pos + 1 + n]:
                w = l.split()
                nodes.append(("leaf", float(w[1])) if w[0] == "leaf" else
                             ("node", int(w[1]), float(w[2]), int(w[3]),
                              int(w[4])))
            trees.append(nodes)
            pos += 1 + n
        ensemble = Ensemble(float(fields["bias"]), trees)
        if words[0] == "body":
            body = ensemble
        else:
            heads[words[1]] = ensemble
    return Model(names, body, heads, trained_on)


def train(args):
    rows = Rows(args.csv)
    body = fit(rows.x, rows.y, BODY)
    heads = {}
    for target in sorted(set(rows.targets)):
        index = [i for i, t in enumerate(rows.targets) if t == target]
        heads[target] = fit_head(body, rows.subset(index))
    workloads = [key[0] for key in rows.workloads()]
    targets = ", ".join(f"{t} ({workloads.count(t)} workloads, "
                        f"{rows.targets.count(t)} rows)"
                        for t in sorted(set(rows.targets)))
    model = Model(rows.names, body, heads, args.trained_on or targets)
    model.write(args.out)
    print(f"wrote {args.out}: body of {len(body.trees)} trees, heads for "
          f"{', '.join(sorted(heads))}; trained on {model.trained_on}")
    print("in-sample:")
    print_score(score(rows, learned_us(model, rows)))


def score_command(args):
    model = read_model(args.model)
    rows = Rows(args.csv)
    print_score(score(rows, learned_us(model, rows)))


def transfer(args):
    source, target_train = Rows(args.source), Rows(args.target_train)
    heldout = Rows(args.target_heldout)
    body = fit(source.x, source.y, BODY)
    print(f"body: {len(source)} source rows; new target: "
          f"{len(target_train)} rows to draw from, {len(heldout)} held out "
          f"({len(heldout.workloads())} workloads)")
    counts = [int(c) for c in args.counts.split(",")]
    analytic = score(heldout, heldout.predicted)
    (target, base), = analytic.items()
    print(f"analytic model alone: regret {100 * base['analytic_regret']:.1f}%"
          f", spearman {base['analytic_spearman']:.2f}")
    print(f"{'measurements':>12} {'regret body+head':>17} "
          f"{'spearman body+head':>19} {'regret alone':>13} "
          f"{'spearman alone':>15}")
    rng = random.Random(args.seed)
    for n in counts:
        n = min(n, len(target_train))
        transfer_scores, alone_scores = [], []
        repeats = 1 if n in (0, len(target_train)) else args.repeats
        for _ in range(repeats):
            index = sorted(rng.sample(range(len(target_train)), n))
            sample = target_train.subset(index)
            model = Model(source.names, body,
                          {target: fit_head(body, sample)} if n else {})
            transfer_scores.append(score(heldout,
                                         learned_us(model, heldout))[target])
            if n >= 2 * BODY["min_samples_leaf"]:
                alone = Model(source.names, fit(sample.x, sample.y, BODY))
                alone_scores.append(score(heldout,
                                          learned_us(alone, heldout))[target])

        def mean(scores, key):
            return float(np.mean([s[key] for s in scores])) if scores else None

        def cell(value, percent, width):
            if value is None:
                return f"{'-':>{width}}"
            return (f"{100 * value:>{width - 1}.1f}%" if percent
                    else f"{value:>{width}.2f}")
        print(f"{n:>12} "
              f"{cell(mean(transfer_scores, 'learned_regret'), True, 17)} "
              f"{cell(mean(transfer_scores, 'learned_spearman'), False, 19)} "
              f"{cell(mean(alone_scores, 'learned_regret'), True, 13)} "
              f"{cell(mean(alone_scores, 'learned_spearman'), False, 15)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("train", help="fit a model and write it")
    p.add_argument("csv", nargs="+", help="quilt-bench --measurements CSVs")
    p.add_argument("--out", required=True, help="the model file to write")
    p.add_argument("--trained-on", help="the file's provenance line")
    p.set_defaults(run=train)
    p = sub.add_parser("score", help="analytic against learned, held out")
    p.add_argument("model")
    p.add_argument("csv", nargs="+")
    p.set_defaults(run=score_command)
    p = sub.add_parser("transfer", help="regret against new-target rows")
    p.add_argument("--source", nargs="+", required=True)
    p.add_argument("--target-train", nargs="+", required=True)
    p.add_argument("--target-heldout", nargs="+", required=True)
    p.add_argument("--counts", default="0,8,16,32,64,128,256,100000")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seed", type=int, default=19)
    p.set_defaults(run=transfer)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
