// Calls a convolution compiled by quiltc --emit=shared for an NVIDIA target
// on device memory (mgpuMemAlloc, host-shared) and compares every output
// with a double-precision reference computed here.
//
//   conv-check [--candidates N] LIB FUNC nhwc|nchw f16|bf16|f32 SH,SW,DH,DW
//              N,H,W,C,F,R,S ...
//
// FUNC(I, F, O) computes O += conv(I, F) with strides SH,SW and dilations
// DH,DW (which must be FUNC's: they are static in the code), no padding:
//   nhwc: I N x H x W x C, F R x S x C x F, O N x OH x OW x F
//   nchw: I N x C x H x W, F F x C x R x S, O N x F x OH x OW
// all row-major, OH = max(0, (H - DH*(R-1) - 1) / SH + 1), OW likewise.
// I and F are of the given type, O f32. With --candidates N, every shape
// runs N + 1 times: with each of the dispatch's first N candidates forced
// (quilt_rt_force_kernel), then with the run-time selection. Prints
// "ok <shape>" or "MISMATCH <shape> ..." and exits 1 on any mismatch,
// failed operand check or GPU error.
#include "QuiltGpuRuntime.h"
#include "QuiltRuntime.h"
#include "check-common.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void row_major(int64_t *strides, const int64_t *sizes) {
  strides[3] = 1;
  for (int d = 2; d >= 0; --d)
    strides[d] = strides[d + 1] * sizes[d + 1];
}

int main(int argc, char **argv) {
  int candidates = take_candidates(&argc, &argv);
  if (argc < 7) {
    fprintf(stderr,
            "usage: %s LIB FUNC nhwc|nchw f16|bf16|f32 SH,SW,DH,DW "
            "N,H,W,C,F,R,S ...\n",
            argv[0]);
    return 2;
  }
  void *fn = load_entry(argv[1], argv[2]);
  if (!fn)
    return 2;
  int nhwc = strcmp(argv[3], "nhwc") == 0;
  if (!nhwc && strcmp(argv[3], "nchw") != 0) {
    fprintf(stderr, "bad layout '%s'\n", argv[3]);
    return 2;
  }
  const char *type = argv[4];
  int elem = strcmp(type, "f32") == 0 ? 4 : 2;
  long SH, SW, DH, DW;
  if (sscanf(argv[5], "%ld,%ld,%ld,%ld", &SH, &SW, &DH, &DW) != 4) {
    fprintf(stderr, "bad strides/dilations '%s'\n", argv[5]);
    return 2;
  }
  int failed = 0;
  for (int s = 6; s < argc; ++s) {
    long N, H, W, C, F, R, S;
    if (sscanf(argv[s], "%ld,%ld,%ld,%ld,%ld,%ld,%ld", &N, &H, &W, &C, &F, &R,
               &S) != 7) {
      fprintf(stderr, "bad shape '%s': expected N,H,W,C,F,R,S\n", argv[s]);
      return 2;
    }
    long OH = out_size(H, R, SH, DH), OW = out_size(W, S, SW, DW);
    Memref4 mi = {0}, mf = {0}, mo = {0};
    int64_t iSizes[4] = {N, H, W, C}, fSizes[4] = {R, S, C, F},
            oSizes[4] = {N, OH, OW, F};
    if (!nhwc) {
      int64_t i2[4] = {N, C, H, W}, f2[4] = {F, C, R, S},
              o2[4] = {N, F, OH, OW};
      memcpy(iSizes, i2, sizeof(i2));
      memcpy(fSizes, f2, sizeof(f2));
      memcpy(oSizes, o2, sizeof(o2));
    }
    memcpy(mi.sizes, iSizes, sizeof(iSizes));
    memcpy(mf.sizes, fSizes, sizeof(fSizes));
    memcpy(mo.sizes, oSizes, sizeof(oSizes));
    row_major(mi.strides, mi.sizes);
    row_major(mf.strides, mf.sizes);
    row_major(mo.strides, mo.sizes);
    size_t iCount = (size_t)(N * H * W * C), fCount = (size_t)(R * S * C * F),
           oCount = (size_t)(N * OH * OW * F);
    unsigned char *I = mgpuMemAlloc(iCount * elem + 16, NULL, true);
    unsigned char *Fl = mgpuMemAlloc(fCount * elem + 16, NULL, true);
    float *O = mgpuMemAlloc(oCount * 4 + 16, NULL, true);
    float *img = malloc((iCount + 1) * 4), *flt = malloc((fCount + 1) * 4);
    double *ref = malloc((oCount + 1) * sizeof(double));
    fill(I, img, iCount, type);
    fill(Fl, flt, fCount, type);
    mi.allocated = mi.aligned = I;
    mf.allocated = mf.aligned = Fl;
    mo.allocated = mo.aligned = O;

    // The reference, in the output's own layout.
    for (long n = 0; n < N; ++n)
      for (long oh = 0; oh < OH; ++oh)
        for (long ow = 0; ow < OW; ++ow)
          for (long f = 0; f < F; ++f) {
            size_t o = nhwc ? (size_t)(((n * OH + oh) * OW + ow) * F + f)
                            : (size_t)(((n * F + f) * OH + oh) * OW + ow);
            double sum = 0.25 * (double)(o % 5);
            for (long r = 0; r < R; ++r)
              for (long q = 0; q < S; ++q)
                for (long c = 0; c < C; ++c) {
                  long h = oh * SH + r * DH, w = ow * SW + q * DW;
                  size_t i = nhwc ? (size_t)(((n * H + h) * W + w) * C + c)
                                  : (size_t)(((n * C + c) * H + h) * W + w);
                  size_t k = nhwc ? (size_t)(((r * S + q) * C + c) * F + f)
                                  : (size_t)(((f * C + c) * R + r) * S + q);
                  sum += (double)img[i] * flt[k];
                }
            ref[o] = sum;
          }

    long K = R * S * C;
    // f32 inputs may run on tf32 tensor cores (10-bit mantissas).
    double tol = (elem == 4 ? 2e-3 : 1e-5) * (double)(K + 1);
    for (int round = 0; round <= candidates; ++round) {
      int forced = round < candidates ? round : -1;
      quilt_rt_force_kernel(forced);
      for (size_t i = 0; i < oCount; ++i)
        O[i] = 0.25f * (float)(i % 5);
      ((void (*)(Memref4 *, Memref4 *, Memref4 *))fn)(&mi, &mf, &mo);
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
      double worst = 0;
      long bad = -1;
      for (size_t o = 0; o < oCount; ++o) {
        double err = fabs(ref[o] - O[o]);
        if (err > tol && err > worst) {
          worst = err;
          bad = (long)o;
        }
      }
      if (bad >= 0) {
        printf("MISMATCH %s (candidate %d): element %ld is %g, expected %g\n",
               argv[s], forced, bad, (double)O[bad], ref[bad]);
        failed = 1;
      } else if (forced == -1) {
        printf("ok %s\n", argv[s]);
      }
    }
    quilt_rt_force_kernel(-1);
    mgpuMemFree(I, NULL);
    mgpuMemFree(Fl, NULL);
    mgpuMemFree(O, NULL);
    free(img);
    free(flt);
    free(ref);
  }
  return failed;
}
