"""Runs matmul-check once per candidate of a dispatch.

    every-candidate.py QUILTC TARGET WORKLOAD [EXPLAIN ARGS...] -- CHECK ARGS...

Asks `quiltc explain --json` (with EXPLAIN ARGS, e.g. the --tuning-db the
library was compiled with) how many candidates TARGET's dispatch for
WORKLOAD (e.g. "matmul f16 M=64 N=64 K=64") has, then runs
`CHECK --candidates N ARGS...`, which forces each in turn. The count does
not depend on the shape: a dispatch carries the same candidates for all.
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
    count = len(json.loads(explained.stdout)["candidates"])
    sys.stdout.flush()
    return subprocess.run([check[0], "--candidates", str(count)] + check[1:]
                          ).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
