// Calls the functions of fused-epilogues.mlir, compiled by quiltc
// --emit=shared, and compares every output with a double-precision
// reference. Built with -DFUSED_CHECK_HOST for a host library (operands in
// host memory), otherwise for a GPU library (operands in memory from
// mgpuMemAlloc, results copied back with mgpuMemcpy).
//
//   fused-check [--candidates N] LIB clamp|residual|tanh_gelu_f16|
//               select_relu_batch|offset_fill M,N,K ...
//
// With --candidates N, every shape runs N + 1 times: with each of the
// dispatch's first N candidates forced (quilt_rt_force_kernel), then with
// the run-time selection. Prints "ok <shape>" or "MISMATCH <shape> ..." and
// exits 1 on any mismatch or failed call. select_relu_batch uses a batch of
// 2.
#include "QuiltRuntime.h"
#include "check-common.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FUSED_CHECK_HOST
static void *buffer(size_t bytes) { return malloc(bytes + 64); }
static void release(void *p) { free(p); }
static void copy_out(void *dst, const void *src, size_t bytes) {
  memcpy(dst, src, bytes);
}
static int device_ok(void) { return 1; }
static const char *device_error(void) { return ""; }
#else
#include "QuiltGpuRuntime.h"
static void *buffer(size_t bytes) {
  return mgpuMemAlloc(bytes + 64, NULL, true);
}
static void release(void *p) { mgpuMemFree(p, NULL); }
static void copy_out(void *dst, const void *src, size_t bytes) {
  mgpuMemcpy(dst, (void *)src, bytes, NULL);
}
static int device_ok(void) { return quilt_gpu_status() == QUILT_GPU_SUCCESS; }
static const char *device_error(void) { return quilt_gpu_first_error(); }
#endif

enum Kind { CLAMP, RESIDUAL, TANH_GELU, SELECT_RELU, OFFSET_FILL };

static double tanh_gelu(double v) {
  return 0.5 * v * (1.0 + tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
}

// Fresh values at a new buffer of `count` elements of `type`, with their
// float copies in a new host array.
static void *operand(size_t count, const char *type, float **values) {
  size_t bytes = count * (strcmp(type, "f32") == 0 ? 4 : 2);
  unsigned char *p = buffer(bytes);
  *values = malloc((count + 1) * sizeof(float));
  fill(p, *values, count, type);
  return p;
}

int main(int argc, char **argv) {
  int candidates = take_candidates(&argc, &argv);
  if (argc < 4) {
    fprintf(stderr, "usage: %s [--candidates N] LIB FUNC M,N,K ...\n", argv[0]);
    return 2;
  }
  const char *names[] = {"clamp", "residual", "tanh_gelu_f16",
                         "select_relu_batch", "offset_fill"};
  int kind = -1;
  for (int i = 0; i < 5; ++i)
    if (strcmp(argv[2], names[i]) == 0)
      kind = i;
  if (kind < 0) {
    fprintf(stderr, "unknown function '%s'\n", argv[2]);
    return 2;
  }
  void *fn = load_entry(argv[1], argv[2]);
  if (!fn)
    return 2;

  int failed = 0;
  for (int s = 3; s < argc; ++s) {
    long M, N, K;
    if (sscanf(argv[s], "%ld,%ld,%ld", &M, &N, &K) != 3) {
      fprintf(stderr, "bad shape '%s': expected M,N,K\n", argv[s]);
      return 2;
    }
    long B = kind == SELECT_RELU ? 2 : 1;
    const char *in = kind == TANH_GELU ? "f16" : "f32";
    float *a, *b, *r = NULL, *v = NULL;
    void *A = operand((size_t)(B * M * K), in, &a);
    void *W = operand((size_t)(B * K * N), in, &b);
    void *R = NULL, *V = NULL;
    if (kind == RESIDUAL || kind == SELECT_RELU)
      R = operand((size_t)(B * M * N), "f32", &r);
    if (kind == CLAMP || kind == TANH_GELU)
      V = operand((size_t)N, "f32", &v);
    if (kind == RESIDUAL)
      V = operand((size_t)M, "f32", &v);
    const float alpha = 0.75f;

    size_t count = (size_t)(B * M * N);
    double *ref = malloc((count + 1) * sizeof(double));
    for (long p = 0; p < B; ++p)
      for (long i = 0; i < M; ++i)
        for (long j = 0; j < N; ++j) {
          double sum = 0;
          for (long k = 0; k < K; ++k)
            sum += (double)a[(p * M + i) * K + k] * b[(p * K + k) * N + j];
          size_t o = (size_t)((p * M + i) * N + j);
          double y = 0;
          switch (kind) {
          case CLAMP:
            y = fmin(fmax(sum + v[j], 0.0), 1.5);
            break;
          case RESIDUAL:
            y = sum * alpha + r[o] - v[i];
            break;
          case TANH_GELU:
            y = tanh_gelu(sum + v[j]);
            break;
          case SELECT_RELU:
            y = fmax(sum + r[o], 0.0);
            break;
          case OFFSET_FILL:
            y = sum + 0.25;
            break;
          }
          ref[o] = y;
        }

    float *out = malloc((count + 1) * sizeof(float));
    for (int round = 0; round <= candidates; ++round) {
      quilt_rt_force_kernel(round < candidates ? round : -1);
      Memref2 x2 = {A, A, 0, {M, K}, {K, 1}}, w2 = {W, W, 0, {K, N}, {N, 1}};
      Memref1 v1 = {V, V, 0, {kind == RESIDUAL ? M : N}, {1}};
      Memref2 r2 = {R, R, 0, {M, N}, {N, 1}};
      Memref3 x3 = {A, A, 0, {B, M, K}, {M * K, K, 1}};
      Memref3 w3 = {W, W, 0, {B, K, N}, {K * N, N, 1}};
      Memref3 r3 = {R, R, 0, {B, M, N}, {M * N, N, 1}};
      Memref2 res2;
      Memref3 res3;
      memset(&res2, 0, sizeof(res2));
      memset(&res3, 0, sizeof(res3));
      void *allocated, *aligned;
      int64_t offset, *sizes, *strides;
      int rank = 2;
      if (kind == SELECT_RELU) {
        ((void (*)(Memref3 *, Memref3 *, Memref3 *, Memref3 *))fn)(&res3, &x3,
                                                                   &w3, &r3);
        allocated = res3.allocated, aligned = res3.aligned;
        offset = res3.offset, sizes = res3.sizes, strides = res3.strides;
        rank = 3;
      } else {
        if (kind == RESIDUAL)
          ((void (*)(Memref2 *, Memref2 *, Memref2 *, Memref2 *, Memref1 *,
                     float))fn)(&res2, &x2, &w2, &r2, &v1, alpha);
        else if (kind == OFFSET_FILL)
          ((void (*)(Memref2 *, Memref2 *, Memref2 *))fn)(&res2, &x2, &w2);
        else
          ((void (*)(Memref2 *, Memref2 *, Memref2 *, Memref1 *))fn)(&res2, &x2,
                                                                     &w2, &v1);
        allocated = res2.allocated, aligned = res2.aligned;
        offset = res2.offset, sizes = res2.sizes, strides = res2.strides;
      }
      if (!device_ok() || quilt_rt_status() != 0) {
        printf("ERROR %s round %d: the call failed %s\n", argv[s], round,
               device_error());
        failed = 1;
        continue;
      }
      int64_t want[3] = {B, M, N};
      int64_t *w = rank == 3 ? want : want + 1;
      int good = 1;
      for (int d = 0; d < rank; ++d)
        good &= sizes[d] == w[d];
      good &= strides[rank - 1] == 1 || w[rank - 1] <= 1;
      if (!good) {
        printf("ERROR %s round %d: the result has the wrong shape\n", argv[s],
               round);
        failed = 1;
        continue;
      }
      size_t elemBytes = kind == TANH_GELU ? 2 : 4;
      unsigned char *raw = malloc(count * elemBytes + 1);
      if (count)
        copy_out(raw, (unsigned char *)aligned + offset * elemBytes,
                 count * elemBytes);
      for (size_t i = 0; i < count; ++i) {
        if (kind == TANH_GELU) {
          uint16_t h;
          memcpy(&h, raw + 2 * i, 2);
          out[i] = from_half(h);
        } else {
          memcpy(&out[i], raw + 4 * i, 4);
        }
      }
      free(raw);
      if (allocated)
        release(allocated);
      double tolerance = kind == TANH_GELU ? 2e-3 : 1e-5;
      for (size_t i = 0; i < count; ++i)
        if (!(fabs(out[i] - ref[i]) <= tolerance * (1.0 + fabs(ref[i])))) {
          printf("MISMATCH %s round %d: element %zu is %g, expected %g\n",
                 argv[s], round, i, out[i], ref[i]);
          failed = 1;
          break;
        }
    }
    if (!failed)
      printf("ok %s\n", argv[s]);
    free(ref);
    free(out);
  }
  return failed;
}
