"""Runs every candidate of one bundle workload several times on fresh random
inputs and counts the wrong runs: a race shows as a candidate that is
sometimes right and sometimes wrong.

Usage: python3 bench/gpu/repeat_candidates.py BUNDLE WORKLOAD_INDEX [REPEATS]

(How the harness race of docs/benchmarks.md, GPU, was told from a kernel
race: every candidate wrong in most runs, then none once run.py
synchronized PyTorch's stream.)"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402 - bench/gpu/run.py, beside this file

run.torch = torch
if len(sys.argv) < 3:
    sys.exit(__doc__)
bundle, index = sys.argv[1], int(sys.argv[2])
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
manifest = json.load(open(os.path.join(bundle, "manifest.json")))
runtime = run.Runtime(bundle, manifest["runtime_libraries"])
w = manifest["workloads"][index]
library = run.Library(os.path.join(bundle, w["library"]))
generator = torch.Generator(device="cuda").manual_seed(7)
print(w["workload"], flush=True)
for i, c in enumerate(w["candidates"]):
    runtime.force_kernel(i)
    wrong, errors = 0, []
    for _ in range(repeats):
        case = run.Case(w, generator)
        err = case.run(library)
        failure = runtime.take_error()
        errors.append(err)
        wrong += failure is not None or err > run.tolerance(c["config"])
    print(f"{i:2d} {c['config']:48s} wrong {wrong}/{repeats} max err {max(errors):.1e}", flush=True)
runtime.force_kernel(-1)
