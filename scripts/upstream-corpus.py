#!/usr/bin/env python3
"""Runs a corpus of MLIR test inputs (upstream MLIR's test/Dialect/Linalg,
kept outside this repository) through Quilt's pipelines and counts what
happens to each case: lowered completely, rejected with a diagnostic,
left partly unlowered with exit 0, crashed, or timed out.

    scripts/upstream-corpus.py DIR [--quilt-opt PATH] [--pipelines host,nvvm,rocdl]
                               [--jobs N] [--timeout S] [--json OUT]

A file is split at `// -----` when one of its RUN lines says
`-split-input-file`. Cases that are not programs are set aside and counted
apart: negative tests (`expected-error`), transform scripts (`transform.`
ops), and inputs that quilt-opt cannot parse or that do not verify before
any pass runs (test dialects, syntax older than MLIR 22). docs/whole-programs.md
reports the counts and says how the corpus was gathered.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

PIPELINES = {
    "host": "--quilt-lower-to-host=target=host",
    "nvvm": "--quilt-lower-to-nvvm=target=h100 format=isa",
    "rocdl": "--quilt-lower-to-rocdl=target=mi300x format=isa",
}

# Ops a completely lowered module may hold: LLVM dialect ops, the module,
# and (GPU pipelines) the serialized device module and launches of it,
# which translation to LLVM IR lowers.
LOWERED_OPS = re.compile(
    r"^(llvm\.|builtin\.module$|module$|gpu\.binary$|gpu\.launch_func$)")
OP_NAME = re.compile(
    r"^\s*(?:%[^=]*=\s*)?\"?([a-z_][a-z0-9_]*\.[a-z0-9_.]+)\"?[\s({<@%:]")
CRASH = re.compile(r"LLVM ERROR|Stack dump|PLEASE submit a bug report")


def split_cases(path):
    text = path.read_text(errors="replace")
    run_lines = [l for l in text.splitlines() if "RUN:" in l]
    if any("-split-input-file" in l for l in run_lines):
        parts = re.split(r"^// -----.*$", text, flags=re.M)
    else:
        parts = [text]
    return [(f"{path}#{i}", part) for i, part in enumerate(parts)]


def set_aside_reason(case):
    if re.search(r"expected-(error|warning|remark)", case):
        return "negative test"
    if re.search(r"\btransform\.", case):
        return "transform script"
    if "func.func" not in case and "func @" not in case:
        return "no function"
    return None


def normalize(message):
    """An error message without the case's own names, for grouping."""
    message = re.sub(r"'[^']*'", "'...'", message)
    message = re.sub(r"\"[^\"]*\"", "\"...\"", message)
    message = re.sub(r"%[\w#]+", "%v", message)
    message = re.sub(r"\d+", "N", message)
    return message.strip()[:160]


def run_case(quilt_opt, pipeline, case, timeout):
    """Runs `pipeline` on `case` (None: parses and verifies it only)."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(case)
        name = f.name
    try:
        command = [quilt_opt, name, "-o", os.devnull if not pipeline else "-"]
        if pipeline:
            command.append(PIPELINES[pipeline])
        proc = subprocess.run(command, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return ("timeout", "")
    finally:
        os.unlink(name)
    if proc.returncode < 0 or CRASH.search(proc.stderr):
        first = next((l for l in proc.stderr.splitlines()
                      if "LLVM ERROR" in l or "error" in l), "signal")
        return ("crash", normalize(first))
    if proc.returncode != 0:
        errors = [l.split("error:", 1)[1] for l in proc.stderr.splitlines()
                  if "error:" in l]
        message = errors[0] if errors else proc.stderr.strip()[:160]
        return ("error" if pipeline else "invalid", normalize(message))
    if not pipeline:
        return ("valid", "")
    left = sorted({m.group(1) for m in map(OP_NAME.match,
                                           proc.stdout.splitlines())
                   if m and not LOWERED_OPS.match(m.group(1))})
    if left:
        return ("left unlowered", ", ".join(left[:4]))
    return ("lowered", "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=pathlib.Path)
    parser.add_argument("--quilt-opt", default=str(
        pathlib.Path(__file__).resolve().parents[1] / "build/bin/quilt-opt"))
    parser.add_argument("--pipelines", default="host,nvvm,rocdl")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()

    pipelines = args.pipelines.split(",")
    for p in pipelines:
        if p not in PIPELINES:
            parser.error(f"unknown pipeline '{p}' (host, nvvm, rocdl)")
    candidates, set_aside = [], collections.Counter()
    for path in sorted(args.corpus.rglob("*.mlir")):
        for name, case in split_cases(path):
            reason = set_aside_reason(case)
            if reason:
                set_aside[reason] += 1
            else:
                candidates.append((name, case))
    # Programs are the cases MLIR 22 parses and verifies as they are.
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        validity = list(pool.map(
            lambda c: run_case(args.quilt_opt, None, c[1], args.timeout),
            candidates))
    cases = [c for c, (v, _) in zip(candidates, validity) if v == "valid"]
    set_aside["invalid for MLIR 22"] = len(candidates) - len(cases)

    results = {p: {} for p in pipelines}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_case, args.quilt_opt, p, case,
                               args.timeout): (p, name)
                   for p in pipelines for name, case in cases}
        for future in concurrent.futures.as_completed(futures):
            p, name = futures[future]
            results[p][name] = future.result()

    print(f"corpus: {args.corpus}")
    print(f"cases: {len(cases) + sum(set_aside.values())}; set aside: "
          + ", ".join(f"{n} {r}" for r, n in sorted(set_aside.items())))
    print(f"programs: {len(cases)}\n")
    summary = {}
    for p in pipelines:
        outcomes = collections.Counter()
        messages = collections.Counter()
        for name, (outcome, detail) in results[p].items():
            outcomes[outcome] += 1
            if outcome != "lowered":
                messages[(outcome, detail)] += 1
        summary[p] = {"outcomes": dict(outcomes),
                      "messages": [{"outcome": o, "detail": d, "cases": n}
                                   for (o, d), n in messages.most_common()]}
        print(f"{p}: " + ", ".join(f"{outcomes[o]} {o}" for o in
                                   ("lowered", "error", "left unlowered",
                                    "crash", "timeout")
                                   if outcomes[o]))
        for (outcome, detail), n in messages.most_common(12):
            print(f"  {n:4d} {outcome}: {detail}")
        print()
    if args.json:
        args.json.write_text(json.dumps(
            {"corpus": str(args.corpus), "set_aside": dict(set_aside),
             "pipelines": summary,
             "cases": {p: {n: list(r) for n, r in results[p].items()}
                       for p in pipelines}}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
