// Calls a matmul or batch_matmul compiled by quiltc --emit=shared for an
// NVIDIA target on device memory (mgpuMemAlloc, host-shared) and compares
// every output with a double-precision reference computed here.
//
//   matmul-check [--candidates N] [--layout nn|tn|nt|tt] [--pad P]
//                LIB FUNC f16|bf16|f32|f64 [B,]M,N,K ...
//
// FUNC(A, B, C) computes C += A x B for A [B x] M x K, B [B x] K x N and
// C [B x] M x N, A and B of the given type, C f32 (f64 for f64). The shapes take a batch
// count when FUNC is a batch matmul (3 or 4 numbers). --layout says which
// operands FUNC reads transposed (its indexing maps): with t for A it is
// stored K x M, with t for B, N x K. --pad P leaves P elements after every
// row of every operand (a strided view, its rows misaligned for vector
// accesses when P is odd); the padding of C must come back untouched.
//
// With --candidates N, every shape runs N + 1 times: with each of the
// dispatch's first N candidates forced (quilt_rt_force_kernel), then with
// the run-time selection. Prints "ok <shape>" or "MISMATCH <shape> ..." and
// exits 1 on any mismatch or GPU error.
#include "QuiltGpuRuntime.h"
#include "QuiltRuntime.h"
#include "check-common.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A [batch x] rows x cols operand stored with `ld` elements per row.
typedef struct {
  long rows, cols, ld, batchStride;
} Layout;

static Layout layout_of(long rows, long cols, long pad) {
  Layout l = {rows, cols, cols + pad, rows * (cols + pad)};
  return l;
}

/// Element `i` of C, stored as f64 or f32.
static double c_get(const unsigned char *C, int f64, size_t i) {
  if (f64) {
    double d;
    memcpy(&d, C + 8 * i, 8);
    return d;
  }
  float f;
  memcpy(&f, C + 4 * i, 4);
  return f;
}

static void c_set(unsigned char *C, int f64, size_t i, double value) {
  if (f64) {
    memcpy(C + 8 * i, &value, 8);
    return;
  }
  float f = (float)value;
  memcpy(C + 4 * i, &f, 4);
}

int main(int argc, char **argv) {
  int candidates = 0;
  const char *layout = "nn";
  long pad = 0;
  while (argc > 2 && strncmp(argv[1], "--", 2) == 0) {
    if (strcmp(argv[1], "--candidates") == 0)
      candidates = atoi(argv[2]);
    else if (strcmp(argv[1], "--layout") == 0)
      layout = argv[2];
    else if (strcmp(argv[1], "--pad") == 0)
      pad = atol(argv[2]);
    else
      break;
    argv += 2;
    argc -= 2;
  }
  if (argc < 5 || strlen(layout) != 2) {
    fprintf(stderr,
            "usage: %s [--candidates N] [--layout nn|tn|nt|tt] [--pad P] "
            "LIB FUNC f16|bf16|f32|f64 [B,]M,N,K ...\n",
            argv[0]);
    return 2;
  }
  int transA = layout[0] == 't', transB = layout[1] == 't';
  void *fn = load_entry(argv[1], argv[2]);
  if (!fn)
    return 2;
  const char *type = argv[3];
  int f64 = strcmp(type, "f64") == 0;
  int elem = f64 ? 8 : strcmp(type, "f32") == 0 ? 4 : 2;
  size_t cElem = f64 ? 8 : 4;
  int failed = 0;
  for (int s = 4; s < argc; ++s) {
    long dims[4];
    int n = sscanf(argv[s], "%ld,%ld,%ld,%ld", &dims[0], &dims[1], &dims[2],
                   &dims[3]);
    if (n != 3 && n != 4) {
      fprintf(stderr, "bad shape '%s': expected [B,]M,N,K\n", argv[s]);
      return 2;
    }
    long batch = n == 4 ? dims[0] : 1;
    long M = dims[n - 3], N = dims[n - 2], K = dims[n - 1];
    Layout la = transA ? layout_of(K, M, pad) : layout_of(M, K, pad);
    Layout lb = transB ? layout_of(N, K, pad) : layout_of(K, N, pad);
    Layout lc = layout_of(M, N, pad);
    size_t aCount = (size_t)(batch * la.batchStride),
           bCount = (size_t)(batch * lb.batchStride),
           cCount = (size_t)(batch * lc.batchStride);
    unsigned char *A = mgpuMemAlloc(aCount * elem + 16, NULL, true);
    unsigned char *B = mgpuMemAlloc(bCount * elem + 16, NULL, true);
    unsigned char *C = mgpuMemAlloc(cCount * cElem + 16, NULL, true);
    float *a = malloc((aCount + 1) * 4), *b = malloc((bCount + 1) * 4);
    fill(A, a, aCount, type);
    fill(B, b, bCount, type);
    for (int round = 0; round <= candidates; ++round) {
      int forced = round < candidates ? round : -1;
      quilt_rt_force_kernel(forced);
      for (size_t i = 0; i < cCount; ++i)
        c_set(C, f64, i, 0.25 * (double)(i % 5));
      if (n == 4) {
        Memref3 ma = {
            A, A, 0, {batch, la.rows, la.cols}, {la.batchStride, la.ld, 1}};
        Memref3 mb = {
            B, B, 0, {batch, lb.rows, lb.cols}, {lb.batchStride, lb.ld, 1}};
        Memref3 mc = {C, C, 0, {batch, M, N}, {lc.batchStride, lc.ld, 1}};
        ((void (*)(Memref3 *, Memref3 *, Memref3 *))fn)(&ma, &mb, &mc);
      } else {
        Memref2 ma = {A, A, 0, {la.rows, la.cols}, {la.ld, 1}};
        Memref2 mb = {B, B, 0, {lb.rows, lb.cols}, {lb.ld, 1}};
        Memref2 mc = {C, C, 0, {M, N}, {lc.ld, 1}};
        ((void (*)(Memref2 *, Memref2 *, Memref2 *))fn)(&ma, &mb, &mc);
      }
      if (quilt_gpu_status() != QUILT_GPU_SUCCESS) {
        printf("GPU ERROR %s (candidate %d): %s\n", argv[s], forced,
               quilt_gpu_first_error());
        return 1;
      }
      double worst = 0;
      long bad = -1;
      for (long z = 0; z < batch; ++z)
        for (long i = 0; i < M; ++i)
          for (long j = 0; j < N; ++j) {
            long c = z * lc.batchStride + i * lc.ld + j;
            double ref = 0.25 * (double)((size_t)c % 5);
            for (long k = 0; k < K; ++k) {
              long ia =
                  z * la.batchStride + (transA ? k * la.ld + i : i * la.ld + k);
              long ib =
                  z * lb.batchStride + (transB ? j * lb.ld + k : k * lb.ld + j);
              ref += (double)a[ia] * b[ib];
            }
            double err = fabs(ref - c_get(C, f64, (size_t)c));
            // f32 inputs may run on tf32 tensor cores (10-bit mantissas);
            // f64 sums of these exact products are exact.
            double tol = (f64 ? 1e-12 : elem == 4 ? 2e-3 : 1e-5) * (double)(K + 1);
            if (err > tol && err > worst) {
              worst = err;
              bad = c;
            }
          }
      // The padding of C is not C's: it must be as it was.
      for (size_t i = 0; i < cCount && pad > 0; ++i)
        if ((long)(i % (size_t)lc.ld) >= N &&
            c_get(C, f64, i) != 0.25 * (double)(i % 5)) {
          worst = INFINITY;
          bad = (long)i;
          break;
        }
      if (bad >= 0) {
        printf("MISMATCH %s (candidate %d): element %ld is off by %g\n",
               argv[s], forced, bad, worst);
        failed = 1;
      } else if (forced == -1) {
        printf("ok %s\n", argv[s]);
      }
    }
    quilt_rt_force_kernel(-1);
    mgpuMemFree(A, NULL);
    mgpuMemFree(B, NULL);
    mgpuMemFree(C, NULL);
    free(a);
    free(b);
  }
  return failed;
}
