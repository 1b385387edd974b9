#!/usr/bin/env python3
"""Quilt's f64 matmul against OpenBLAS's dgemm, on this machine.

quilt-bench measures f32, f16 and bf16 workloads only, so this compares
f64 from Python: one compiled function (C = A x B, the fill folded) called
through quilt.load, against numpy.matmul, which calls OpenBLAS's dgemm
(Debian's libblas.so.3 is OpenBLAS). Run with one thread for both:

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=build/python \\
        QUILT_TOOLS_DIR=build/bin python3 bench/host/f64_matmul.py

Each shape is checked against NumPy first, then timed interleaved: the
median of --repeats calls each after a warm-up. Prints a Markdown table.
"""
import argparse
import statistics
import time

import numpy as np

import quilt

SOURCE = """
func.func @mm(%a: memref<?x?xf64>, %b: memref<?x?xf64>,
              %c: memref<?x?xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<?x?xf64>)
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>)
                outs(%c : memref<?x?xf64>)
  return
}
"""

# Skinny (decode), small, BERT-like and square shapes.
SHAPES = [(1, 4096, 4096), (17, 4096, 4096), (128, 768, 768),
          (384, 768, 3072), (512, 512, 512), (1000, 1000, 1000),
          (1024, 3072, 768)]


def median_ms(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    mm = quilt.load(SOURCE, "mm")
    rng = np.random.default_rng(0)
    print("| M | N | K | Quilt ms | OpenBLAS dgemm ms | Quilt speed over "
          "OpenBLAS |")
    print("|---|---|---|---|---|---|")
    for m, n, k in SHAPES:
        a, b = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (k, n))
        c, reference = np.empty((m, n)), np.empty((m, n))
        mm(a, b, c)
        np.matmul(a, b, out=reference)
        np.testing.assert_allclose(c, reference, rtol=1e-12, atol=1e-12)
        quilt_ms = openblas_ms = 0.0
        # Interleaved, so that both see the same machine.
        for _ in range(2):
            quilt_ms = median_ms(lambda: mm(a, b, c), args.repeats)
            openblas_ms = median_ms(lambda: np.matmul(a, b, out=reference),
                                    args.repeats)
        print("| %d | %d | %d | %.2f | %.2f | %.2fx |"
              % (m, n, k, quilt_ms, openblas_ms, openblas_ms / quilt_ms),
              flush=True)


if __name__ == "__main__":
    main()
