"""Runs matmul-check once per candidate of a dispatch.

    every-candidate.py QUILTC TARGET WORKLOAD [EXPLAIN ARGS...] -- CHECK ARGS...

Asks `quiltc explain --json` (with EXPLAIN ARGS, e.g. the --tuning-db the
library was compiled with) how many candidates TARGET's dispatch for
WORKLOAD (e.g. "matmul f16 M=64 N=64 K=64") has, then runs
`CHECK --candidates N ARGS...`, which forces each in turn. The count does
not depend on the shape: a dispatch carries the same candidates for all.

Split-K variants that differ only in their split count run one kernel with
another launch operand (docs/gpu-codegen.md, "Split-K"): of those, the first
(the one the model gained most from, docs/cost-model.md "Candidates") is
forced, and the rest, which the candidate list ends with, are left to the
model's own choice in the last round. split-k.test and amdgpu-split-k.test
force split counts 2 to 5 on every kernel family.
"""
import json
import subprocess
import sys


def main(argv):
    split = argv.index("--")
    quiltc, target, workload, *explain_args = argv[1:split]
    check = argv[split + 1:]
    explained = subprocess.run(
        [quiltc, "explain", "--target", target, "--json", *explain_args,
         workload],
        check=True, capture_output=True, text=True)
    candidates = sorted(json.loads(explained.stdout)["candidates"],
                        key=lambda c: c["index"])
    count = len(candidates)
    # Split-K variants after the first of their kernel, if they end the list.
    seen, repeated = set(), []
    for c in candidates:
        config = dict(c["config"])
        if config.pop("split_k") > 1:
            config.pop("str")
            kernel = tuple(sorted(config.items()))
            if kernel in seen:
                repeated.append(c["index"])
            seen.add(kernel)
    if repeated == list(range(count - len(repeated), count)):
        count -= len(repeated)
    sys.stdout.flush()
    return subprocess.run([check[0], "--candidates", str(count)] + check[1:]
                          ).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
