// What the emulator execution checks (matmul-check.c, conv-check.c,
// epilogue-check.c) share: memref descriptors as the C entries take them,
// the input values, and element conversions.
#ifndef QUILT_TEST_EMULATOR_CHECK_COMMON_H
#define QUILT_TEST_EMULATOR_CHECK_COMMON_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUILT_MEMREF(RANK)                                                     \
  typedef struct {                                                             \
    void *allocated, *aligned;                                                 \
    int64_t offset, sizes[RANK], strides[RANK];                                \
  } Memref##RANK
QUILT_MEMREF(1);
QUILT_MEMREF(2);
QUILT_MEMREF(3);
QUILT_MEMREF(4);

static uint32_t state = 12345;
// Small multiples of 1/8 in [-1, 1]: exact in every element type, so the
// products are exact and only the summation order differs.
static inline float next_value(void) {
  state = state * 1664525u + 1013904223u;
  return (float)((int)(state >> 24) % 17 - 8) / 8.0f;
}

static inline uint16_t to_half(float f) {
  _Float16 h = (_Float16)f;
  uint16_t u;
  memcpy(&u, &h, 2);
  return u;
}
static inline float from_half(uint16_t u) {
  _Float16 h;
  memcpy(&h, &u, 2);
  return (float)h;
}
// Truncation: exact for next_value's numbers.
static inline uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16);
}
static inline float from_bf16(uint16_t u) {
  uint32_t v = (uint32_t)u << 16;
  float f;
  memcpy(&f, &v, 4);
  return f;
}

// Fills `count` elements of `type` (f16, bf16, f32, f64) at `device` with
// new values, and their exact float copies at `host`.
static inline void fill(unsigned char *device, float *host, size_t count,
                        const char *type) {
  for (size_t i = 0; i < count; ++i) {
    host[i] = next_value();
    if (strcmp(type, "f32") == 0) {
      memcpy(device + 4 * i, &host[i], 4);
    } else if (strcmp(type, "f64") == 0) {
      double d = host[i];
      memcpy(device + 8 * i, &d, 8);
    } else {
      uint16_t h = type[0] == 'b' ? to_bf16(host[i]) : to_half(host[i]);
      memcpy(device + 2 * i, &h, 2);
    }
  }
}

// Output size of a convolution along one dimension, no padding.
static inline long out_size(long in, long filter, long stride, long dilation) {
  long extent = dilation * (filter - 1) + 1;
  return in < extent ? 0 : (in - extent) / stride + 1;
}

// Takes a leading "--candidates N" off the arguments: N, or 0 without one.
static inline int take_candidates(int *argc, char ***argv) {
  if (*argc > 2 && strcmp((*argv)[1], "--candidates") == 0) {
    int candidates = atoi((*argv)[2]);
    *argv += 2;
    *argc -= 2;
    return candidates;
  }
  return 0;
}
// The C entry _mlir_ciface_<function> of `library`, or null after saying
// why on stderr.
static inline void *load_entry(const char *library, const char *function) {
  void *lib = dlopen(library, RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return NULL;
  }
  char symbol[256];
  snprintf(symbol, sizeof(symbol), "_mlir_ciface_%s", function);
  void *fn = dlsym(lib, symbol);
  if (!fn)
    fprintf(stderr, "no %s in %s\n", symbol, library);
  return fn;
}

#endif // QUILT_TEST_EMULATOR_CHECK_COMMON_H
