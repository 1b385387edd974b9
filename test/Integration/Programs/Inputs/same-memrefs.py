"""Compares the memrefs two runs printed with printMemrefF32: the same
shapes, and every element within --rtol/--atol of the reference's. Usage:
same-memrefs.py REFERENCE OTHER [--rtol R] [--atol A]. Prints one line per
memref and exits 1 at the first difference."""

import argparse
import re
import sys

HEADER = re.compile(r"rank = (\d+) offset = \d+ sizes = \[([0-9, ]*)\]")
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)")


def memrefs(path):
    """[(sizes, values)] of each memref printed in `path`."""
    found, current = [], None
    for line in open(path):
        header = HEADER.search(line)
        if header:
            current = ([int(s) for s in header.group(2).split(",") if s.strip()],
                       [])
            found.append(current)
            line = line[line.index("data =") + len("data ="):]
        if current is not None:
            current[1].extend(float(v) for v in NUMBER.findall(line))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reference")
    parser.add_argument("other")
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--atol", type=float, default=1e-6)
    args = parser.parse_args()
    reference, other = memrefs(args.reference), memrefs(args.other)
    if not reference or len(reference) != len(other):
        print(f"{len(reference)} memrefs in {args.reference}, "
              f"{len(other)} in {args.other}")
        return 1
    for index, ((sizes, want), (other_sizes, got)) in enumerate(
            zip(reference, other)):
        if sizes != other_sizes or len(want) != len(got):
            print(f"memref {index}: sizes {sizes} and {other_sizes}")
            return 1
        worst = max((abs(g - w) for w, g in zip(want, got)), default=0.0)
        for position, (w, g) in enumerate(zip(want, got)):
            if abs(g - w) > args.atol + args.rtol * abs(w):
                print(f"memref {index}: element {position} is {g}, "
                      f"the reference's {w}")
                return 1
        print(f"memref {index}: sizes {sizes}, {len(want)} elements agree "
              f"(largest difference {worst:.3g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
