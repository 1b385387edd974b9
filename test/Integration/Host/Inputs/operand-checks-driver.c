/* Calls the functions of operand-checks.mlir, compiled to a shared library,
 * with operands whose sizes disagree and with null buffers, then with valid
 * operands. Prints, per call, the runtime's status and message and whether
 * the output was left untouched; valid calls are checked against plain C
 * references. The runtime's functions are looked up through the library's
 * handle: it links libquilt_runtime.so, the copy its code reports to. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} MemRef1;
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2;
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} MemRef3;
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
} MemRef4;

static int32_t (*rt_status)(void);
static const char *(*rt_last_error)(void);
static void (*rt_clear_status)(void);
static int failures;

/* Row-major descriptors over `data` (which may be NULL). */
static MemRef1 m1(float *data, int64_t n) {
  MemRef1 m = {data, data, 0, {n}, {1}};
  return m;
}
static MemRef2 m2(float *data, int64_t r, int64_t c) {
  MemRef2 m = {data, data, 0, {r, c}, {c, 1}};
  return m;
}
static MemRef3 m3(float *data, int64_t b, int64_t r, int64_t c) {
  MemRef3 m = {data, data, 0, {b, r, c}, {r * c, c, 1}};
  return m;
}
static MemRef4 m4(float *data, int64_t a, int64_t b, int64_t c, int64_t d) {
  MemRef4 m = {data, data, 0, {a, b, c, d}, {b * c * d, c * d, d, 1}};
  return m;
}

/* Small integers: sums of products stay exact in f32. */
static float *filled(int64_t count, int seed) {
  float *data = malloc(sizeof(float) * (count ? count : 1));
  for (int64_t i = 0; i < count; ++i)
    data[i] = (float)((i * 7 + seed * 3) % 11 - 5);
  return data;
}

static float *copy(const float *data, int64_t count) {
  float *c = malloc(sizeof(float) * (count ? count : 1));
  memcpy(c, data, sizeof(float) * count);
  return c;
}

/* Bit for bit: an untouched output. */
static int same(const float *a, const float *b, int64_t count) {
  return memcmp(a, b, sizeof(float) * count) == 0;
}

/* Equal values (small integers, so exact in any order of summation). */
static int equal(const float *a, const float *b, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    if (a[i] != b[i])
      return 0;
  return 1;
}

/* One call that must fail: the status, whether the output is as it was,
 * the message. */
static void expect_failure(const char *what, int untouched) {
  int32_t status = rt_status();
  printf("%s: status %d, output %s: %s\n", what, status,
         untouched ? "untouched" : "CHANGED", rt_last_error());
  failures += status == 0 || !untouched;
  rt_clear_status();
}

/* One call that must succeed with the output `got` equal to `want`. */
static void expect_success(const char *what, const float *got,
                           const float *want, int64_t count) {
  int32_t status = rt_status();
  int ok = status == 0 && equal(got, want, count);
  printf("%s: status %d, %s%s\n", what, status, ok ? "ok" : "WRONG",
         status ? rt_last_error() : "");
  failures += !ok;
  rt_clear_status();
}

typedef void (*MatmulFn)(MemRef2 *, MemRef2 *, MemRef2 *);
typedef void (*BatchBiasFn)(MemRef3 *, MemRef3 *, MemRef3 *, MemRef1 *);
typedef void (*ConvFn)(MemRef4 *, MemRef4 *, MemRef4 *);

static void test_matmul(MatmulFn matmul) {
  enum { M = 17, N = 64, K = 32 };
  float *a = filled(M * K, 1), *b = filled(K * N, 2), *c = filled(M * N, 3);
  float *before = copy(c, M * N);
  MemRef2 A = m2(a, M, K), C = m2(c, M, N);

  MemRef2 B31 = m2(b, K - 1, N);
  matmul(&A, &B31, &C);
  expect_failure("matmul, B 31x64", same(c, before, M * N));
  MemRef2 B = m2(b, K, N), C16 = m2(c, M - 1, N);
  matmul(&A, &B, &C16);
  expect_failure("matmul, C 16x64", same(c, before, M * N));
  MemRef2 C63 = m2(c, M, N - 1);
  matmul(&A, &B, &C63);
  expect_failure("matmul, C 17x63", same(c, before, M * N));
  MemRef2 nullA = m2(NULL, M, K);
  matmul(&nullA, &B, &C);
  expect_failure("matmul, null A", same(c, before, M * N));
  MemRef2 nullC = m2(NULL, M, N);
  matmul(&A, &B, &nullC);
  expect_failure("matmul, null C", same(c, before, M * N));
  /* Negative sizes that agree with each other are no operands either. */
  MemRef2 negativeA = m2(a, -3, K), negativeC = m2(c, -3, N);
  matmul(&negativeA, &B, &negativeC);
  expect_failure("matmul, M=-3", same(c, before, M * N));

  /* Null buffers of size-0 operands are valid: M = 0, then K = 0 (C stays
   * as it was: nothing to add). */
  MemRef2 emptyA = m2(NULL, 0, K), emptyC = m2(NULL, 0, N);
  matmul(&emptyA, &B, &emptyC);
  expect_success("matmul, M=0 with null A and C", c, before, M * N);
  MemRef2 noK_A = m2(NULL, M, 0), noK_B = m2(NULL, 0, N);
  matmul(&noK_A, &noK_B, &C);
  expect_success("matmul, K=0 with null A and B", c, before, M * N);

  /* A valid call right after the failures. */
  float *want = copy(c, M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int p = 0; p < K; ++p)
        want[i * N + j] += a[i * K + p] * b[p * N + j];
  matmul(&A, &B, &C);
  expect_success("matmul, 17x64x32", c, want, M * N);
  free(a), free(b), free(c), free(before), free(want);
}

/* One call that must fail and returns a new buffer, which it never wrote. */
static void expect_failure_new_buffer(const char *what) {
  int32_t status = rt_status();
  printf("%s: status %d, new output not written: %s\n", what, status,
         rt_last_error());
  failures += status == 0;
  rt_clear_status();
}

/* One call that must fail with an empty new buffer (sizes all 0). */
static void expect_empty_result(const char *what, MemRef3 *result) {
  int64_t *sizes = result->sizes;
  int empty = sizes[0] == 0 && sizes[1] == 0 && sizes[2] == 0;
  int32_t status = rt_status();
  printf("%s: status %d, %s result: %s\n", what, status,
         empty ? "empty" : "NONEMPTY", rt_last_error());
  failures += status == 0 || !empty;
  rt_clear_status();
  free(result->allocated);
}

static void test_batch_bias(BatchBiasFn batch_bias) {
  enum { S = 2, M = 5, N = 6, K = 7 };
  float *a = filled(S * M * K, 4), *b = filled(3 * K * N, 5),
        *bias = filled(N, 6);
  MemRef3 A = m3(a, S, M, K), B = m3(b, S, K, N), Y;
  MemRef1 Bias = m1(bias, N);

  /* The result is a new buffer whose zero fill is folded into the dispatch:
   * on failure nothing writes it, so only the status and message count. */
  MemRef3 B3 = m3(b, 3, K, N);
  batch_bias(&Y, &A, &B3, &Bias);
  expect_failure_new_buffer("batch_bias, B batch 3");
  free(Y.allocated);
  MemRef1 Bias5 = m1(bias, N - 1);
  batch_bias(&Y, &A, &B, &Bias5);
  expect_failure_new_buffer("batch_bias, bias of 5");
  free(Y.allocated);
  MemRef1 nullBias = m1(NULL, N);
  batch_bias(&Y, &A, &B, &nullBias);
  expect_failure_new_buffer("batch_bias, null bias");
  free(Y.allocated);
  MemRef1 negativeBias = m1(bias, -6);
  batch_bias(&Y, &A, &B, &negativeBias);
  expect_failure_new_buffer("batch_bias, bias of -6");
  free(Y.allocated);
  MemRef3 B8 = m3(b, S, K + 1, N);
  batch_bias(&Y, &A, &B8, &Bias);
  expect_failure_new_buffer("batch_bias, B 2x8x6");
  free(Y.allocated);

  /* Sizes the result cannot have: an empty result instead, and the status.
   * 2^32 x 0 by 0 x 2^32 has no elements to read, but a 2^64-element
   * result, whose byte count wraps 64 bits to 0. */
  int64_t big = (int64_t)1 << 32;
  MemRef3 tallA = m3(NULL, 1, big, 0), wideB = m3(NULL, 1, 0, big);
  MemRef1 wideBias = m1(bias, big);
  batch_bias(&Y, &tallA, &wideB, &wideBias);
  expect_empty_result("batch_bias, 1x2^32x2^32x0", &Y);
  MemRef3 negativeM = m3(a, S, -3, K);
  batch_bias(&Y, &negativeM, &B, &Bias);
  expect_empty_result("batch_bias, M=-3", &Y);

  float want[S * M * N];
  for (int s = 0; s < S; ++s)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        float sum = 0;
        for (int p = 0; p < K; ++p)
          sum += a[(s * M + i) * K + p] * b[(s * K + p) * N + j];
        want[(s * M + i) * N + j] = sum + bias[j];
      }
  batch_bias(&Y, &A, &B, &Bias);
  expect_success("batch_bias, 2x5x6x7", Y.aligned, want, S * M * N);
  free(Y.allocated);
  free(a), free(b), free(bias);
}

static void test_conv(ConvFn conv) {
  /* Strides 2x1, dilations 1x2: OH = (9 - 2 - 1) / 2 + 1 = 4,
   * OW = (8 - 2 - 1) / 1 + 1 = 6. */
  enum { NI = 2, H = 9, W = 8, C = 3, R = 3, S = 2, F = 4, OH = 4, OW = 6 };
  float *in = filled(NI * H * W * C, 7),
        *filter = filled(R * S * (C + 1) * F, 8);
  float *out = filled(NI * (OH + 1) * OW * F, 9);
  int64_t outCount = NI * (OH + 1) * OW * F;
  float *before = copy(out, outCount);
  MemRef4 In = m4(in, NI, H, W, C), Filter = m4(filter, R, S, C, F);

  MemRef4 Out5 = m4(out, NI, OH + 1, OW, F);
  conv(&In, &Filter, &Out5);
  expect_failure("conv, output height 5", same(out, before, outCount));
  MemRef4 Filter4 = m4(filter, R, S, C + 1, F), Out = m4(out, NI, OH, OW, F);
  conv(&In, &Filter4, &Out);
  expect_failure("conv, filter with 4 channels", same(out, before, outCount));
  MemRef4 Out1 = m4(out, 1, OH, OW, F);
  conv(&In, &Filter, &Out1);
  expect_failure("conv, 1 output image", same(out, before, outCount));
  MemRef4 nullFilter = m4(NULL, R, S, C, F);
  conv(&In, &nullFilter, &Out);
  expect_failure("conv, null filter", same(out, before, outCount));

  /* A filter taller than the input: no output rows, nothing to do. */
  MemRef4 Short = m4(in, NI, 2, W, C), NoRows = m4(NULL, NI, 0, OW, F);
  conv(&Short, &Filter, &NoRows);
  expect_success("conv, input height 2 and no output rows", out, before,
                 outCount);

  float *want = copy(out, NI * OH * OW * F);
  for (int n = 0; n < NI; ++n)
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow)
        for (int f = 0; f < F; ++f) {
          float sum = want[((n * OH + oh) * OW + ow) * F + f];
          for (int r = 0; r < R; ++r)
            for (int s = 0; s < S; ++s)
              for (int c = 0; c < C; ++c)
                sum += in[((n * H + oh * 2 + r) * W + ow + s * 2) * C + c] *
                       filter[((r * S + s) * C + c) * F + f];
          want[((n * OH + oh) * OW + ow) * F + f] = sum;
        }
  conv(&In, &Filter, &Out);
  expect_success("conv, 2x9x8x3 * 3x2x3x4", out, want, NI * OH * OW * F);
  free(in), free(filter), free(out), free(before), free(want);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SHARED_LIBRARY\n", argv[0]);
    return 2;
  }
  void *library = dlopen(argv[1], RTLD_NOW);
  if (!library) {
    fprintf(stderr, "error: %s\n", dlerror());
    return 1;
  }
  MatmulFn matmul = (MatmulFn)dlsym(library, "_mlir_ciface_matmul");
  BatchBiasFn batch_bias =
      (BatchBiasFn)dlsym(library, "_mlir_ciface_batch_bias");
  ConvFn conv = (ConvFn)dlsym(library, "_mlir_ciface_conv");
  rt_status = (int32_t(*)(void))dlsym(library, "quilt_rt_status");
  rt_last_error = (const char *(*)(void))dlsym(library, "quilt_rt_last_error");
  rt_clear_status = (void (*)(void))dlsym(library, "quilt_rt_clear_status");
  if (!matmul || !batch_bias || !conv || !rt_status || !rt_last_error ||
      !rt_clear_status) {
    fprintf(stderr, "error: a symbol is missing from %s\n", argv[1]);
    return 1;
  }
  test_matmul(matmul);
  test_batch_bias(batch_bias);
  test_conv(conv);
  printf("operand checks: %s\n", failures ? "FAILED" : "all as expected");
  return failures != 0;
}
