// Calls a matmul or batch_matmul compiled by quiltc --emit=shared for an
// NVIDIA target on device memory (mgpuMemAlloc, host-shared) and compares
// every output with a double-precision reference computed here.
//
//   matmul-check [--candidates N] LIB FUNC f16|bf16|f32 [B,]M,N,K ...
//
// With --candidates N, every shape runs N + 1 times: with each of the
// dispatch's first N candidates forced (quilt_rt_force_kernel), then with
// the run-time selection.
//
// FUNC(A, B, C) computes C += A x B with A [B x] M x K, B [B x] K x N,
// C [B x] M x N row-major, A and B of the given type, C f32. The shapes
// take a batch count when FUNC is a batch matmul (3 or 4 numbers).
// Prints "ok <shape>" or "MISMATCH <shape> ..." and exits 1 on any
// mismatch or GPU error.
#include "QuiltGpuRuntime.h"
#include "QuiltRuntime.h"
#include "check-common.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int candidates = 0;
  if (argc > 2 && strcmp(argv[1], "--candidates") == 0) {
    candidates = atoi(argv[2]);
    argv += 2;
    argc -= 2;
  }
  if (argc < 5) {
    fprintf(stderr, "usage: %s LIB FUNC f16|bf16|f32 [B,]M,N,K ...\n",
            argv[0]);
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  char symbol[256];
  snprintf(symbol, sizeof(symbol), "_mlir_ciface_%s", argv[2]);
  void *fn = dlsym(lib, symbol);
  if (!fn) {
    fprintf(stderr, "no %s in %s\n", symbol, argv[1]);
    return 2;
  }
  const char *type = argv[3];
  int elem = strcmp(type, "f32") == 0 ? 4 : 2;
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
    size_t aCount = (size_t)(batch * M * K), bCount = (size_t)(batch * K * N),
           cCount = (size_t)(batch * M * N);
    unsigned char *A = mgpuMemAlloc(aCount * elem + 16, NULL, true);
    unsigned char *B = mgpuMemAlloc(bCount * elem + 16, NULL, true);
    float *C = mgpuMemAlloc(cCount * 4 + 16, NULL, true);
    float *a = malloc((aCount + 1) * 4), *b = malloc((bCount + 1) * 4);
    for (size_t i = 0; i < aCount; ++i) {
      a[i] = next_value();
      if (elem == 4)
        memcpy(A + 4 * i, &a[i], 4);
      else {
        uint16_t h = type[0] == 'b' ? to_bf16(a[i]) : to_half(a[i]);
        a[i] = type[0] == 'b' ? from_bf16(h) : from_half(h);
        memcpy(A + 2 * i, &h, 2);
      }
    }
    for (size_t i = 0; i < bCount; ++i) {
      b[i] = next_value();
      if (elem == 4)
        memcpy(B + 4 * i, &b[i], 4);
      else {
        uint16_t h = type[0] == 'b' ? to_bf16(b[i]) : to_half(b[i]);
        b[i] = type[0] == 'b' ? from_bf16(h) : from_half(h);
        memcpy(B + 2 * i, &h, 2);
      }
    }
    for (int round = 0; round <= candidates; ++round) {
      int forced = round < candidates ? round : -1;
      quilt_rt_force_kernel(forced);
      for (size_t i = 0; i < cCount; ++i)
        C[i] = 0.25f * (float)(i % 5);
      if (n == 4) {
        Memref3 ma = {A, A, 0, {batch, M, K}, {M * K, K, 1}};
        Memref3 mb = {B, B, 0, {batch, K, N}, {K * N, N, 1}};
        Memref3 mc = {C, C, 0, {batch, M, N}, {M * N, N, 1}};
        ((void (*)(Memref3 *, Memref3 *, Memref3 *))fn)(&ma, &mb, &mc);
      } else {
        Memref2 ma = {A, A, 0, {M, K}, {K, 1}};
        Memref2 mb = {B, B, 0, {K, N}, {N, 1}};
        Memref2 mc = {C, C, 0, {M, N}, {N, 1}};
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
            double ref = 0.25 * (double)((size_t)((z * M + i) * N + j) % 5);
            for (long k = 0; k < K; ++k)
              ref += (double)a[(z * M + i) * K + k] * b[(z * K + k) * N + j];
            double err = fabs(ref - C[(z * M + i) * N + j]);
            // f32 inputs may run on tf32 tensor cores (10-bit mantissas).
            double tol = (elem == 4 ? 2e-3 : 1e-5) * (double)(K + 1);
            if (err > tol && err > worst) {
              worst = err;
              bad = (z * M + i) * N + j;
            }
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
