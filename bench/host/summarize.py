#!/usr/bin/env python3
"""Summarizes repeated `quilt-bench --json` runs on the same workload file.

    python3 bench/host/summarize.py RUN.json [RUN.json ...] [--md OUT.md]

Prints, per (dtype, op) group and overall per dtype, the geomean speed-up over
OpenBLAS of each run and of the per-workload medians (the figure
docs/benchmarks.md reports), the geomean over the upstream lowering where
measured, and a markdown table of the per-workload medians. Every run must
list the same workloads in the same order; a workload whose output was wrong
(`ok` false) in any run is reported and fails the script.
"""

import argparse
import json
import math
import statistics
import sys


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

    rows = []
    for i, name in enumerate(names):
        results = [run[i] for run in runs]
        vs_blas = [ratio(r["openblas_us"], r["quilt_us"]) for r in results]
        vs_up = [ratio(r["upstream_us"], r["quilt_us"]) for r in results]
        op, dtype = name.split()[:2]
        rows.append({
            "workload": name, "op": op, "dtype": dtype,
            "per_run": vs_blas,
            "vs_blas": median(vs_blas), "vs_up": median(vs_up),
            "quilt_us": median([r["quilt_us"] for r in results]),
            "openblas_us": median([r["openblas_us"] for r in results]),
            "upstream_us": median([r["upstream_us"] for r in results]),
            "max_err": max(r["max_rel_error"] for r in results),
            "ok": all(r["ok"] for r in results),
            "predicted_us": results[0]["predicted_us"],
            "chosen": results[0]["chosen"],
        })

    def report(label, group):
        if not group:
            return
        per_run = [geomean([row["per_run"][j] for row in group])
                   for j in range(len(runs))]
        up = [row["vs_up"] for row in group if row["vs_up"] is not None]
        print(f"{label:<28} {len(group):3d} workloads  vs OpenBLAS "
              f"{fmt(geomean([row['vs_blas'] for row in group]), '%.2fx')} "
              f"(runs: {', '.join(fmt(g, '%.2f') for g in per_run)})  "
              f"vs upstream {fmt(geomean(up), '%.1fx')} ({len(up)})")

    for dtype in sorted({row["dtype"] for row in rows}):
        report(f"{dtype}, all", [r for r in rows if r["dtype"] == dtype])
        for op in sorted({row["op"] for row in rows}):
            report(f"{dtype} {op}", [r for r in rows
                                     if r["dtype"] == dtype and r["op"] == op])

    if args.md:
        with open(args.md, "w") as f:
            f.write("| workload | ok (max err) | quilt | openblas | vs blas "
                    "| upstream | vs upstream | pred | chosen |\n")
            f.write("|---|---|---|---|---|---|---|---|---|\n")
            for row in rows:
                # "TMxTNxTK t1 w1x1 ttMRxNR vLANES s1 cpu_fma": the cache
                # blocks, the register block and the lanes; empty when the
                # workload did not compile.
                fields = row["chosen"].split()
                chosen = " ".join(fields[i] for i in (0, 3, 4)) \
                    if len(fields) > 4 else row["chosen"] or "-"
                f.write(
                    f"| `{row['workload']}` | "
                    f"{'yes' if row['ok'] else 'NO'} ({row['max_err']:.0e}) | "
                    f"{fmt(row['quilt_us'], '%.1f')} | "
                    f"{fmt(row['openblas_us'], '%.1f')} | "
                    f"{fmt(row['vs_blas'], '%.2fx')} | "
                    f"{fmt(row['upstream_us'], '%.0f')} | "
                    f"{fmt(row['vs_up'], '%.1fx')} | "
                    f"{fmt(row['predicted_us'], '%.0f')} | `{chosen}` |\n")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
