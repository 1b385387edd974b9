#!/usr/bin/env python3
"""Summarizes repeated `quilt-bench --json` runs on the same workload file.

    python3 bench/host/summarize.py RUN.json [RUN.json ...] [--md OUT.md]

For every library the runs timed (OpenBLAS, oneDNN, BLIS) and for the fastest
of them on each workload ("best"), prints Quilt's geomean speed-up per shape
class and per (dtype, op), each run's and the per-workload medians' (the
figure docs/benchmarks.md reports); the geomean over the upstream lowering
where measured; and oneDNN's median primitive creation time. `--md` writes
the per-workload medians as a markdown table. Every run must list the same
workloads in the same order; a workload whose output was wrong (`ok` false)
in any run is reported and fails the script. Workloads with an empty
dimension are listed but left out of the geomeans, as quilt-bench does.

Shape classes: `skinny` (matmuls with M or N at most 32), `attention` (batch
matmuls), `large` (matmuls with M and N at least 512), `medium` (the other
matmuls) and `conv`.
"""

import argparse
import json
import math
import statistics
import sys

LIBRARIES = ("openblas", "onednn", "blis")


def geomean(values):
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def ratio(base, quilt):
    return base / quilt if base is not None and quilt else None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value, pattern):
    return "-" if value is None else pattern % value


def parse_workload(name):
    """("matmul", "f32", {"M": 80, ...}) from "matmul f32 M=80 N=768 K=768"."""
    fields = name.split()
    sizes = {}
    for field in fields[2:]:
        key, _, value = field.partition("=")
        if value.isdigit():
            sizes[key] = int(value)
    return fields[0], fields[1], sizes


def shape_class(name):
    op, _, sizes = parse_workload(name)
    if op.startswith("conv"):
        return "conv"
    if op == "batch_matmul":
        return "attention"
    m, n = sizes.get("M", 0), sizes.get("N", 0)
    if min(m, n) <= 32:
        return "skinny"
    if min(m, n) >= 512:
        return "large"
    return "medium"


def best_library(result):
    """The fastest library's time on one run of a workload, or None."""
    times = [result.get(f"{lib}_us") for lib in LIBRARIES]
    times = [t for t in times if t is not None]
    return min(times) if times else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="quilt-bench --json outputs")
    parser.add_argument("--md", help="also write the per-workload table here")
    args = parser.parse_args()

    runs = []
    for path in args.runs:
        with open(path) as f:
            runs.append(json.load(f)["results"])
    names = [r["workload"] for r in runs[0]]
    for path, run in zip(args.runs, runs):
        if [r["workload"] for r in run] != names:
            sys.exit(f"{path}: not the same workloads as {args.runs[0]}")

    wrong = [(path, r["workload"]) for path, run in zip(args.runs, runs)
             for r in run if not r["ok"]]
    for path, name in wrong:
        print(f"WRONG OUTPUT: {name} in {path}")
    for path, run in zip(args.runs, runs):
        for r in run:
            for lib in LIBRARIES:
                if f"{lib}_error" in r:
                    print(f"{lib} on {r['workload']} in {path}: "
                          f"{r[lib + '_error']}")

    baselines = [lib for lib in LIBRARIES
                 if any(f"{lib}_us" in r for run in runs for r in run)]
    if len(baselines) > 1:
        baselines.append("best")

    rows = []
    for i, name in enumerate(names):
        results = [run[i] for run in runs]
        op, dtype, sizes = parse_workload(name)
        row = {
            "work": all(v > 0 for key, v in sizes.items()
                        if key not in ("pad", "stride")),
            "workload": name, "op": op, "dtype": dtype,
            "class": shape_class(name),
            "quilt_us": median([r["quilt_us"] for r in results]),
            "upstream_us": median([r.get("upstream_us") for r in results]),
            "vs_up": median([ratio(r.get("upstream_us"), r["quilt_us"])
                             for r in results]),
            "create_us": median([r.get("onednn_create_us") for r in results]),
            "max_err": max(r["max_rel_error"] for r in results),
            "ok": all(r["ok"] for r in results),
            "predicted_us": results[0]["predicted_us"],
            "chosen": results[0]["chosen"],
            # Per baseline: its median time and Quilt's speed-up over it,
            # per run and the median of the runs.
            "per_run": {}, "vs": {}, "us": {},
        }
        for base in baselines:
            times = [best_library(r) if base == "best" else r.get(f"{base}_us")
                     for r in results]
            row["per_run"][base] = [ratio(t, r["quilt_us"])
                                    for t, r in zip(times, results)]
            row["vs"][base] = median(row["per_run"][base])
            row["us"][base] = median(times)
        rows.append(row)

    def report(label, group):
        # Empty products measure nothing but call overhead.
        group = [row for row in group if row["work"]]
        if not group:
            return
        parts = []
        for base in baselines:
            per_run = [geomean([row["per_run"][base][j] for row in group])
                       for j in range(len(runs))]
            parts.append(
                f"vs {base} "
                f"{fmt(geomean([row['vs'][base] for row in group]), '%.2fx')}"
                f" ({', '.join(fmt(g, '%.2f') for g in per_run)})")
        up = [row["vs_up"] for row in group if row["vs_up"] is not None]
        if up:
            parts.append(f"vs upstream {fmt(geomean(up), '%.1fx')} ({len(up)})")
        print(f"{label:<26} {len(group):3d}  " + "  ".join(parts))

    print("Quilt's geomean speed-up over each baseline: median of the runs "
          "(each run's)")
    for dtype in sorted({row["dtype"] for row in rows}):
        of_type = [r for r in rows if r["dtype"] == dtype]
        report(f"{dtype}, all", of_type)
        for cls in ("skinny", "attention", "medium", "large", "conv"):
            report(f"{dtype} {cls}", [r for r in of_type if r["class"] == cls])
        for op in sorted({row["op"] for row in of_type}):
            report(f"{dtype} {op}", [r for r in of_type if r["op"] == op])
    creates = [row["create_us"] for row in rows if row["create_us"]]
    if creates:
        print(f"oneDNN primitive creation: median {median(creates):.0f} us, "
              f"{min(creates):.0f}-{max(creates):.0f} us over "
              f"{len(creates)} shapes")

    if args.md:
        with open(args.md, "w") as f:
            libs = [b for b in baselines if b != "best"]
            head = ["workload", "class", "ok (max err)", "quilt"] + libs
            if "best" in baselines:
                head.append("vs best")
            head += [f"vs {lib}" for lib in libs if "best" not in baselines]
            head += ["upstream", "vs upstream", "pred", "chosen"]
            f.write("| " + " | ".join(head) + " |\n")
            f.write("|" + "---|" * len(head) + "\n")
            for row in rows:
                # "TMxTNxTK t1 w1x1 ttMRxNR vLANES s1 cpu_fma": the cache
                # blocks, the register block and the lanes; empty when the
                # workload did not compile.
                fields = row["chosen"].split()
                chosen = " ".join(fields[i] for i in (0, 3, 4)) \
                    if len(fields) > 4 else row["chosen"] or "-"
                cells = [f"`{row['workload']}`", row["class"],
                         f"{'yes' if row['ok'] else 'NO'} "
                         f"({row['max_err']:.0e})",
                         fmt(row["quilt_us"], "%.1f")]
                cells += [fmt(row["us"][lib], "%.1f") for lib in libs]
                if "best" in baselines:
                    cells.append(fmt(row["vs"]["best"], "%.2fx"))
                else:
                    cells += [fmt(row["vs"][lib], "%.2fx") for lib in libs]
                cells += [fmt(row["upstream_us"], "%.0f"),
                          fmt(row["vs_up"], "%.1fx"),
                          fmt(row["predicted_us"], "%.0f"), f"`{chosen}`"]
                f.write("| " + " | ".join(cells) + " |\n")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
