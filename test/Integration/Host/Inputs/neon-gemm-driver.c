/* Runs the host-neon build of Inputs/neon-gemm.mlir (C entry _mlir_ciface_mm)
 * on dynamic shapes that take both the in-place path and the packed one,
 * with 0, 1, primes and sizes that are not multiples of any block, and
 * checks C += A * B against a double-precision reference. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Memref2D;

void _mlir_ciface_mm(Memref2D *a, Memref2D *b, Memref2D *c);
int quilt_rt_status(void);
const char *quilt_rt_last_error(void);

static Memref2D matrix(int64_t rows, int64_t cols, unsigned seed) {
  float *data = malloc(sizeof(float) * (size_t)(rows * cols + 1));
  for (int64_t i = 0; i < rows * cols; ++i)
    data[i] = (float)((int)((i * 37 + seed * 11) % 23) - 11) / 8.0f;
  Memref2D m = {data, data, 0, {rows, cols}, {cols, 1}};
  return m;
}

int main(void) {
  /* M, N, K */
  static const int64_t shapes[][3] = {
      {0, 5, 7},   {5, 0, 7},    {5, 7, 0},     {1, 1, 1},
      {5, 5, 64},  {7, 17, 11},  {3, 4, 40},    {2, 3, 57},
      {13, 31, 200}, {65, 67, 300}, {100, 3, 513}, {31, 129, 37}};
  int failures = 0;
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
    Memref2D a = matrix(m, k, 1), b = matrix(k, n, 2), c = matrix(m, n, 3);
    Memref2D ref = matrix(m, n, 3);
    _mlir_ciface_mm(&a, &b, &c);
    if (quilt_rt_status() != 0) {
      printf("M=%lld N=%lld K=%lld: %s\n", (long long)m, (long long)n,
             (long long)k, quilt_rt_last_error());
      return 1;
    }
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = ref.aligned[i * n + j];
        for (int64_t p = 0; p < k; ++p)
          sum += (double)a.aligned[i * k + p] * b.aligned[p * n + j];
        double err = fabs(sum - c.aligned[i * n + j]) / (1.0 + fabs(sum));
        worst = err > worst ? err : worst;
      }
    int ok = worst < 1e-5;
    failures += !ok;
    printf("M=%lld N=%lld K=%lld max error %.1e %s\n", (long long)m,
           (long long)n, (long long)k, worst, ok ? "ok" : "WRONG");
    free(a.allocated), free(b.allocated), free(c.allocated);
    free(ref.allocated);
  }
  printf(failures ? "FAIL\n" : "PASS\n");
  return failures != 0;
}
