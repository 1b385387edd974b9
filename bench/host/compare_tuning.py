#!/usr/bin/env python3
"""Quilt with a tuning database against Quilt without, on the same workloads.

    quilt-bench --target host --workloads W --tuning-db tuned.db \
        --baselines untuned --json > RUN.json          (twice or more)
    python3 bench/host/compare_tuning.py --db tuned.db RUN.json ... [--md]

Each run times both libraries in one process, per workload in ABBA order
(separate processes differ by more than the database does: heap and page
placement alone moved identical kernels by 5% here). Per workload it
prints the median over the runs of each side's time and of the speed-up,
and whether a region of the database holds the workload: there the tuned
kernel runs; elsewhere both sides run the model's pick (among more
candidates on the tuned side), and the ratio shows the noise. Geomeans:
over workloads in a region, outside, and all. A wrong output in any run
fails the script.
"""

import argparse
import json
import math
import statistics
import sys


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def gemm_shape(name):
    """(b, m, n, k) of a matmul or batch_matmul workload line, else None."""
    fields = name.split()
    sizes = dict(f.split("=", 1) for f in fields[2:] if "=" in f)
    if fields[0] not in ("matmul", "batch_matmul"):
        return None
    return (int(sizes.get("B", 1)), int(sizes["M"]), int(sizes["N"]), int(sizes["K"]))


def parse_range(text):
    low, _, high = text.partition("..")
    return int(low), int(high or low)


def read_regions(path):
    """[(op, dtype, [(lo, hi) for b, m, n, k])] of a tuning database."""
    regions, current = [], None
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line.startswith("["):
                op, dtype = line.strip("[]").split()
                current = [op, dtype, {"b": (1, 1)}]
                regions.append(current)
            elif current and "=" in line:
                key, value = (s.strip() for s in line.split("=", 1))
                if key in ("b", "m", "n", "k"):
                    current[2][key] = parse_range(value)
    return [(op, dtype, [dims[d] for d in "bmnk"]) for op, dtype, dims in regions]


def in_region(name, regions):
    shape = gemm_shape(name)
    if shape is None:
        return False
    op, dtype = name.split()[:2]
    return any(op == r_op and dtype == r_dtype and
               all(lo <= x <= hi for x, (lo, hi) in zip(shape, bounds))
               for r_op, r_dtype, bounds in regions)


def paired(paths):
    """[(workload, untuned us, tuned us, speed-up)], medians over the runs."""
    order, runs = [], {}
    for path in paths:
        with open(path) as f:
            for r in json.load(f)["results"]:
                if not r["ok"]:
                    sys.exit(f"{path}: {r['workload']}: wrong output")
                if r.get("untuned_us") is None or not r["quilt_us"]:
                    continue
                if r["workload"] not in runs:
                    order.append(r["workload"])
                runs.setdefault(r["workload"], []).append(
                    (r["untuned_us"], r["quilt_us"]))
    return [(w,
             statistics.median(u for u, _ in runs[w]),
             statistics.median(t for _, t in runs[w]),
             statistics.median(u / t for u, t in runs[w])) for w in order]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--md", action="store_true", help="a markdown table")
    args = parser.parse_args()
    regions = read_regions(args.db)

    rows, inside, outside = [], [], []
    for w, untuned, tuned, speedup in paired(args.runs):
        held = in_region(w, regions)
        (inside if held else outside).append(speedup)
        rows.append((w, untuned, tuned, speedup, "tuned" if held else "model"))
    if args.md:
        print("| workload | without the database, us | with it, us | speed-up | kernel |")
        print("|---|---|---|---|---|")
        for w, b, t, s, k in rows:
            print(f"| {w} | {b:.1f} | {t:.1f} | {s:.2f}x | {k} |")
    else:
        print(f"{'workload':42} {'untuned_us':>11} {'tuned_us':>11} {'speedup':>8}  kernel")
        for w, b, t, s, k in rows:
            print(f"{w:42} {b:11.1f} {t:11.1f} {s:7.2f}x  {k}")
    for label, values in (("in a tuned region", inside), ("outside", outside),
                          ("all", inside + outside)):
        g = geomean(values)
        if g:
            print(f"geomean speed-up {label}: {g:.3f}x on {len(values)} workloads")


if __name__ == "__main__":
    main()
