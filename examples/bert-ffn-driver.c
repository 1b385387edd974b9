/* Runs the compiled examples/bert-ffn.mlir for several token counts and
 * checks every output against a plain C reference: a host library, or one
 * built for a GPU target (run on the GPU, or on Quilt's emulators).
 *
 *   quiltc examples/bert-ffn.mlir --target host --emit=shared -o bert-ffn.so
 *   cc -O2 examples/bert-ffn-driver.c -o bert-ffn-driver -ldl -lm
 *   ./bert-ffn-driver ./bert-ffn.so [M ...]
 *
 *   quiltc examples/bert-ffn.mlir --target mi300x --emit=shared -o bert-ffn.mi300x.so
 *   QUILT_GPU_DRIVER=build/lib/libquilt_hip_emulator.so ./bert-ffn-driver ./bert-ffn.mi300x.so 0 1 17
 *
 * The C ABI of a compiled function `f` is `_mlir_ciface_f`: each memref or
 * tensor argument is passed as a pointer to a memref descriptor, and a
 * tensor result comes back through a descriptor pointer passed first. On
 * the host the result buffer is malloc'ed by the compiled code and freed by
 * the caller (its `allocated` pointer). A GPU build's kernels address
 * device memory: the caller registers its host buffers with the device
 * around the call (docs/gpu-runtime.md), and the result is device memory,
 * copied back and freed with the GPU runtime's calls. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} MemRef1D;

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2D;

typedef void (*BertFfn)(MemRef2D *result, MemRef2D *x, MemRef2D *w1,
                        MemRef1D *b1, MemRef2D *w2, MemRef1D *b2);

/* The GPU runtime a GPU build calls (libquilt_cuda_runtime.so or
 * libquilt_hip_runtime.so, a dependency of the library); all null for a
 * host build. */
typedef struct {
  void (*launch)(void);
  void (*registerMemRef)(int64_t rank, void *descriptor, int64_t elementBytes);
  void (*unregisterMemRef)(int64_t rank, void *descriptor, int64_t elementBytes);
  void (*memcpy)(void *dst, void *src, size_t bytes, void *stream);
  void (*synchronize)(void *stream);
  void (*memFree)(void *pointer, void *stream);
  int32_t (*status)(void);
  const char *(*firstError)(void);
} Gpu;

static Gpu findGpu(void *library) {
  Gpu gpu = {0};
  *(void **)&gpu.launch = dlsym(library, "mgpuLaunchKernel");
  if (!gpu.launch)
    return gpu;
  *(void **)&gpu.registerMemRef = dlsym(library, "mgpuMemHostRegisterMemRef");
  *(void **)&gpu.unregisterMemRef = dlsym(library, "mgpuMemHostUnregisterMemRef");
  *(void **)&gpu.memcpy = dlsym(library, "mgpuMemcpy");
  *(void **)&gpu.synchronize = dlsym(library, "mgpuStreamSynchronize");
  *(void **)&gpu.memFree = dlsym(library, "mgpuMemFree");
  *(void **)&gpu.status = dlsym(library, "quilt_gpu_status");
  *(void **)&gpu.firstError = dlsym(library, "quilt_gpu_first_error");
  return gpu;
}

/* Registers (or unregisters) the host buffers a call reads with the device:
 * page-locked and mapped on a GPU. Empty ones are left alone. */
static void eachBuffer(void (*fn)(int64_t, void *, int64_t), MemRef2D *x,
                       MemRef2D *w1, MemRef1D *b1, MemRef2D *w2,
                       MemRef1D *b2) {
  if (x->sizes[0] > 0)
    fn(2, x, sizeof(float));
  fn(2, w1, sizeof(float));
  fn(1, b1, sizeof(float));
  fn(2, w2, sizeof(float));
  fn(1, b2, sizeof(float));
}

enum { D = 768, F = 3072 };

static MemRef2D matrix(float *data, int64_t rows, int64_t cols) {
  MemRef2D m = {data, data, 0, {rows, cols}, {cols, 1}};
  return m;
}

static MemRef1D vector(float *data, int64_t size) {
  MemRef1D v = {data, data, 0, {size}, {1}};
  return v;
}

static float *random_floats(int64_t count, unsigned *seed, float scale) {
  float *data = malloc(sizeof(float) * (count ? count : 1));
  for (int64_t i = 0; i < count; ++i)
    data[i] = scale * ((float)rand_r(seed) / RAND_MAX * 2.0f - 1.0f);
  return data;
}

/* Y = gelu(X W1 + b1) W2 + b2 in double precision, row by row. */
static void reference(int64_t m, const float *x, const float *w1,
                      const float *b1, const float *w2, const float *b2,
                      double *y) {
  /* Loops ordered so the inner one walks rows of W1 and W2 contiguously. */
  double *h = malloc(sizeof(double) * F);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t f = 0; f < F; ++f)
      h[f] = b1[f];
    for (int64_t d = 0; d < D; ++d)
      for (int64_t f = 0; f < F; ++f)
        h[f] += (double)x[i * D + d] * w1[d * F + f];
    for (int64_t f = 0; f < F; ++f)
      h[f] = 0.5 * h[f] * (1.0 + erf(h[f] / sqrt(2.0)));
    double *row = y + i * D;
    for (int64_t d = 0; d < D; ++d)
      row[d] = b2[d];
    for (int64_t f = 0; f < F; ++f)
      for (int64_t d = 0; d < D; ++d)
        row[d] += h[f] * w2[f * D + d];
  }
  free(h);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s BERT_FFN_SHARED_LIBRARY [TOKENS ...]\n",
            argv[0]);
    return 2;
  }
  void *library = dlopen(argv[1], RTLD_NOW);
  if (!library) {
    fprintf(stderr, "error: %s\n", dlerror());
    return 1;
  }
  BertFfn bert_ffn = (BertFfn)dlsym(library, "_mlir_ciface_bert_ffn");
  if (!bert_ffn) {
    fprintf(stderr, "error: no _mlir_ciface_bert_ffn in %s\n", argv[1]);
    return 1;
  }
  Gpu gpu = findGpu(library);
  if (gpu.launch && !(gpu.registerMemRef && gpu.unregisterMemRef &&
                      gpu.memcpy && gpu.synchronize && gpu.memFree &&
                      gpu.status && gpu.firstError)) {
    fprintf(stderr, "error: %s launches GPU kernels but its runtime is not "
                    "Quilt's\n", argv[1]);
    return 1;
  }

  unsigned seed = 7;
  float *w1 = random_floats((int64_t)D * F, &seed, 0.05f);
  float *b1 = random_floats(F, &seed, 0.5f);
  float *w2 = random_floats((int64_t)F * D, &seed, 0.05f);
  float *b2 = random_floats(D, &seed, 0.5f);
  MemRef2D w1d = matrix(w1, D, F), w2d = matrix(w2, F, D);
  MemRef1D b1d = vector(b1, F), b2d = vector(b2, D);

  /* Token counts from the BERT workloads (16 x sequence length), plus the
   * edge cases: none, one, a prime; or those on the command line. */
  int64_t tokens[64] = {0, 1, 17, 80, 384};
  size_t count = 5;
  if (argc > 2) {
    count = 0;
    for (int i = 2; i < argc && count < 64; ++i) {
      char *end;
      long long value = strtoll(argv[i], &end, 10);
      if (*end || value < 0) {
        fprintf(stderr, "error: '%s' is not a token count\n", argv[i]);
        return 2;
      }
      tokens[count++] = value;
    }
  }
  int failures = 0;
  for (size_t t = 0; t < count; ++t) {
    int64_t m = tokens[t];
    float *x = random_floats(m * D, &seed, 1.0f);
    MemRef2D xd = matrix(x, m, D), y;
    if (gpu.launch)
      eachBuffer(gpu.registerMemRef, &xd, &w1d, &b1d, &w2d, &b2d);
    bert_ffn(&y, &xd, &w1d, &b1d, &w2d, &b2d);
    if (gpu.launch) {
      eachBuffer(gpu.unregisterMemRef, &xd, &w1d, &b1d, &w2d, &b2d);
      /* The result is device memory: copy it to the host, free it there. */
      size_t bytes = sizeof(float) * (size_t)(y.sizes[0] * y.sizes[1]);
      float *host = malloc(bytes ? bytes : 1);
      if (bytes)
        gpu.memcpy(host, y.aligned + y.offset, bytes, NULL);
      gpu.synchronize(NULL);
      gpu.memFree(y.allocated, NULL);
      if (gpu.status() != 0) {
        fprintf(stderr, "error: a GPU call failed: %s\n", gpu.firstError());
        return 1;
      }
      y.allocated = y.aligned = host;
      y.offset = 0;
      y.strides[0] = y.sizes[1];
      y.strides[1] = 1;
    }

    double *want = malloc(sizeof(double) * (m > 0 ? m * D : 1));
    reference(m, x, w1, b1, w2, b2, want);
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t d = 0; d < D; ++d) {
        double got = y.aligned[y.offset + i * y.strides[0] + d * y.strides[1]];
        double error = fabs(got - want[i * D + d]) / (1.0 + fabs(want[i * D + d]));
        if (!(error <= worst))
          worst = isnan(error) ? INFINITY : error;
      }
    int ok = y.sizes[0] == m && y.sizes[1] == D && worst < 1e-4;
    failures += !ok;
    printf("M=%-4lld  result %lldx%lld  max error %.2e  %s\n", (long long)m,
           (long long)y.sizes[0], (long long)y.sizes[1], worst,
           ok ? "ok" : "WRONG");
    free(y.allocated);
    free(want);
    free(x);
  }
  printf("%s\n", failures ? "bert-ffn: FAILED" : "bert-ffn: all outputs match the reference");
  return failures ? 1 : 0;
}
