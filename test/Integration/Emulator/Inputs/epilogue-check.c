// Calls a contraction with a fused bias + activation epilogue compiled by
// quiltc --emit=shared for an NVIDIA target (Inputs/epilogue.mlir) on device
// memory and compares every output with a double-precision reference.
//
//   epilogue-check [--candidates N] LIB FUNC matmul none|relu|gelu M,N,K ...
//   epilogue-check [--candidates N] LIB FUNC conv2d_nhwc|conv2d_nchw
//                  none|relu|gelu SH,SW,DH,DW N,H,W,C,F,R,S ...
//
// FUNC returns a new tensor (through the descriptor _mlir_ciface_FUNC takes
// first, in device memory the compiled code allocated), all row-major:
//   matmul:      FUNC(X, W, bias) = act(X x W + bias), X M x K, W K x N
//                f16, bias N f32, result M x N f32;
//   conv2d_nhwc: FUNC(I, F, bias, N, OH, OW, F) = act(conv(I, F) + bias),
//                I N x H x W x C, F R x S x C x F f16, bias F f32, result
//                N x OH x OW x F f32;
//   conv2d_nchw: FUNC(I, F, bias, N, F, OH, OW), I N x C x H x W,
//                F F x C x R x S, result N x F x OH x OW;
// strides SH,SW and dilations DH,DW are FUNC's own, no padding. act is the
// identity (none), max(x, 0) (relu) or 0.5 x (1 + erf(x / sqrt(2))) (gelu).
// With --candidates N, every shape runs N + 1 times: with each of the
// dispatch's first N candidates forced (quilt_rt_force_kernel), then with
// the run-time selection. Prints "ok <shape>" or "MISMATCH <shape> ..." and
// exits 1 on any mismatch, failed operand check or GPU error.
#include "QuiltGpuRuntime.h"
#include "QuiltRuntime.h"
#include "check-common.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NONE, RELU, GELU };
static double activate(int act, double x) {
  if (act == GELU)
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
  return act == RELU && x < 0 ? 0 : x;
}

static int64_t product(const int64_t *sizes, int rank) {
  int64_t p = 1;
  for (int d = 0; d < rank; ++d)
    p *= sizes[d];
  return p;
}

// Checks a returned descriptor against the expected sizes (row-major) and
// copies its elements to `out`. Returns 0 when the descriptor is wrong.
static int take_result(void *allocated, void *aligned, int64_t offset,
                       const int64_t *sizes, const int64_t *strides,
                       const int64_t *want, int rank, float *out,
                       const char *shape) {
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (sizes[d] != want[d] || (want[d] > 1 && strides[d] != stride)) {
      printf("BAD RESULT %s: dimension %d is %lld (stride %lld), expected "
             "%lld (stride %lld)\n",
             shape, d, (long long)sizes[d], (long long)strides[d],
             (long long)want[d], (long long)stride);
      return 0;
    }
    stride *= want[d];
  }
  size_t count = (size_t)product(want, rank);
  if (count)
    mgpuMemcpy(out, (float *)aligned + offset, count * 4, NULL);
  mgpuMemFree(allocated, NULL);
  return 1;
}

int main(int argc, char **argv) {
  int candidates = take_candidates(&argc, &argv);
  if (argc < 6) {
    fprintf(stderr,
            "usage: %s LIB FUNC matmul none|relu|gelu M,N,K ...\n"
            "       %s LIB FUNC conv2d_nhwc|conv2d_nchw none|relu|gelu "
            "SH,SW,DH,DW N,H,W,C,F,R,S ...\n",
            argv[0], argv[0]);
    return 2;
  }
  void *fn = load_entry(argv[1], argv[2]);
  if (!fn)
    return 2;
  int nchw = strcmp(argv[3], "conv2d_nchw") == 0;
  int conv = nchw || strcmp(argv[3], "conv2d_nhwc") == 0;
  if (!conv && strcmp(argv[3], "matmul") != 0) {
    fprintf(stderr, "bad kind '%s'\n", argv[3]);
    return 2;
  }
  int act = strcmp(argv[4], "gelu") == 0   ? GELU
            : strcmp(argv[4], "relu") == 0 ? RELU
                                           : NONE;
  if (act == NONE && strcmp(argv[4], "none") != 0) {
    fprintf(stderr, "bad activation '%s'\n", argv[4]);
    return 2;
  }
  long SH = 1, SW = 1, DH = 1, DW = 1;
  int first = 5;
  if (conv) {
    if (sscanf(argv[5], "%ld,%ld,%ld,%ld", &SH, &SW, &DH, &DW) != 4) {
      fprintf(stderr, "bad strides/dilations '%s'\n", argv[5]);
      return 2;
    }
    first = 6;
  }
  int failed = 0;
  for (int s = first; s < argc; ++s) {
    // The GEMM view: out[m][n] = act(sum_k a(m, k) * b(k, n) + bias[n]).
    long M, N, K, n0 = 0, H = 0, W = 0, C = 0, R = 0, S = 0, OH = 0, OW = 0;
    if (conv) {
      if (sscanf(argv[s], "%ld,%ld,%ld,%ld,%ld,%ld,%ld", &n0, &H, &W, &C, &N,
                 &R, &S) != 7) {
        fprintf(stderr, "bad shape '%s': expected N,H,W,C,F,R,S\n", argv[s]);
        return 2;
      }
      OH = out_size(H, R, SH, DH);
      OW = out_size(W, S, SW, DW);
      M = n0 * OH * OW;
      K = R * S * C;
    } else if (sscanf(argv[s], "%ld,%ld,%ld", &M, &N, &K) != 3) {
      fprintf(stderr, "bad shape '%s': expected M,N,K\n", argv[s]);
      return 2;
    }
    size_t aCount = conv ? (size_t)(n0 * H * W * C) : (size_t)(M * K);
    size_t bCount = (size_t)(K * N), oCount = (size_t)(M * N);
    unsigned char *A = mgpuMemAlloc(aCount * 2 + 16, NULL, true);
    unsigned char *B = mgpuMemAlloc(bCount * 2 + 16, NULL, true);
    float *Bias = mgpuMemAlloc((size_t)N * 4 + 16, NULL, true);
    float *a = malloc((aCount + 1) * 4), *b = malloc((bCount + 1) * 4);
    float *bias = malloc((size_t)(N + 1) * 4);
    float *out = malloc((oCount + 1) * 4);
    double *ref = malloc((oCount + 1) * sizeof(double));
    fill(A, a, aCount, "f16");
    fill(B, b, bCount, "f16");
    for (long j = 0; j < N; ++j)
      Bias[j] = bias[j] = 2.0f * next_value();

    // The reference, in the result's layout; a convolution's GEMM row is
    // the output pixel m = (n * OH + oh) * OW + ow, its column the filter j.
    for (long i = 0; i < M; ++i)
      for (long j = 0; j < N; ++j) {
        double sum = bias[j];
        size_t o = (size_t)(i * N + j);
        if (conv) {
          long n = i / (OH * OW), oh = i / OW % OH, ow = i % OW;
          if (nchw)
            o = (size_t)(((n * N + j) * OH + oh) * OW + ow);
          for (long r = 0; r < R; ++r)
            for (long q = 0; q < S; ++q)
              for (long c = 0; c < C; ++c) {
                long h = oh * SH + r * DH, w = ow * SW + q * DW;
                if (nchw)
                  sum += (double)a[((n * C + c) * H + h) * W + w] *
                         b[((j * C + c) * R + r) * S + q];
                else
                  sum += (double)a[((n * H + h) * W + w) * C + c] *
                         b[((r * S + q) * C + c) * N + j];
              }
        } else {
          for (long k = 0; k < K; ++k)
            sum += (double)a[i * K + k] * b[k * N + j];
        }
        ref[o] = activate(act, sum);
      }

    for (int round = 0; round <= candidates; ++round) {
      int forced = round < candidates ? round : -1;
      quilt_rt_force_kernel(forced);
      int took;
      if (conv) {
        Memref4 mi = {A, A, 0, {n0, H, W, C}, {H * W * C, W * C, C, 1}};
        Memref4 mf = {B, B, 0, {R, S, C, N}, {S * C * N, C * N, N, 1}};
        int64_t want[4] = {n0, OH, OW, N};
        if (nchw) {
          Memref4 i2 = {A, A, 0, {n0, C, H, W}, {C * H * W, H * W, W, 1}};
          Memref4 f2 = {B, B, 0, {N, C, R, S}, {C * R * S, R * S, S, 1}};
          int64_t w2[4] = {n0, N, OH, OW};
          mi = i2;
          mf = f2;
          memcpy(want, w2, sizeof(w2));
        }
        Memref1 mb = {Bias, Bias, 0, {N}, {1}};
        Memref4 result;
        memset(&result, 0, sizeof(result));
        ((void (*)(Memref4 *, Memref4 *, Memref4 *, Memref1 *, int64_t, int64_t,
                   int64_t, int64_t))fn)(&result, &mi, &mf, &mb, want[0],
                                         want[1], want[2], want[3]);
        took = quilt_gpu_status() == QUILT_GPU_SUCCESS &&
               quilt_rt_status() == 0 &&
               take_result(result.allocated, result.aligned, result.offset,
                           result.sizes, result.strides, want, 4, out, argv[s]);
      } else {
        Memref2 mx = {A, A, 0, {M, K}, {K, 1}};
        Memref2 mw = {B, B, 0, {K, N}, {N, 1}};
        Memref1 mb = {Bias, Bias, 0, {N}, {1}};
        Memref2 result;
        memset(&result, 0, sizeof(result));
        ((void (*)(Memref2 *, Memref2 *, Memref2 *, Memref1 *))fn)(&result, &mx,
                                                                   &mw, &mb);
        int64_t want[2] = {M, N};
        took = quilt_gpu_status() == QUILT_GPU_SUCCESS &&
               quilt_rt_status() == 0 &&
               take_result(result.allocated, result.aligned, result.offset,
                           result.sizes, result.strides, want, 2, out, argv[s]);
      }
      if (quilt_gpu_status() != QUILT_GPU_SUCCESS) {
        printf("GPU ERROR %s (candidate %d): %s\n", argv[s], forced,
               quilt_gpu_first_error());
        return 1;
      }
      if (quilt_rt_status() != 0) {
        printf("OPERAND ERROR %s (candidate %d): %s\n", argv[s], forced,
               quilt_rt_last_error());
        quilt_rt_clear_status();
        failed = 1;
        continue;
      }
      if (!took) {
        failed = 1;
        continue;
      }
      double worst = 0;
      long bad = -1;
      for (size_t o = 0; o < oCount; ++o) {
        // Exact products summed in f32 in some order, then the activation
        // (a polynomial erf for GELU) in f32.
        double err = fabs(ref[o] - out[o]);
        double tol = 1e-5 * (double)(K + 1) + 2e-6 * (1.0 + fabs(ref[o]));
        if (err > tol && err > worst) {
          worst = err;
          bad = (long)o;
        }
      }
      if (bad >= 0) {
        printf("MISMATCH %s (candidate %d): element %ld is %g, expected %g\n",
               argv[s], forced, bad, (double)out[bad], ref[bad]);
        failed = 1;
      } else if (forced == -1) {
        printf("ok %s\n", argv[s]);
      }
    }
    quilt_rt_force_kernel(-1);
    mgpuMemFree(A, NULL);
    mgpuMemFree(B, NULL);
    mgpuMemFree(Bias, NULL);
    free(a);
    free(b);
    free(bias);
    free(out);
    free(ref);
  }
  return failed;
}
