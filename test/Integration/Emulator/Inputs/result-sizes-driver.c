/* Calls result-sizes.mlir's @product, compiled to a shared library for any
 * target, with K = 0 (no elements to read: null A and B are valid) and the
 * M and N given on the command line, and prints the runtime's status and
 * message and the result's sizes. Sizes whose product wraps 64 bits, or a
 * negative size, must give status 101 and an empty result, not a small
 * buffer written past its end. The result is not freed: on a GPU target it
 * is device memory. With --read-result first, the program then reads each
 * result's first element directly, as a careless host program would: a
 * fault for a GPU target's device memory (and on the emulators). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2;

int main(int argc, char **argv) {
  int readResult = argc > 1 && strcmp(argv[1], "--read-result") == 0;
  argv += readResult;
  argc -= readResult;
  if (argc < 2 || (argc - 2) % 2) {
    fprintf(stderr, "usage: %s [--read-result] SHARED_LIBRARY [M N]...\n",
            argv[0]);
    return 2;
  }
  void *library = dlopen(argv[1], RTLD_NOW);
  if (!library) {
    fprintf(stderr, "error: %s\n", dlerror());
    return 1;
  }
  void (*product)(MemRef2 *, MemRef2 *, MemRef2 *) =
      (void (*)(MemRef2 *, MemRef2 *, MemRef2 *))dlsym(library,
                                                       "_mlir_ciface_product");
  int32_t (*status)(void) = (int32_t(*)(void))dlsym(library, "quilt_rt_status");
  const char *(*lastError)(void) =
      (const char *(*)(void))dlsym(library, "quilt_rt_last_error");
  void (*clearStatus)(void) =
      (void (*)(void))dlsym(library, "quilt_rt_clear_status");
  if (!product || !status || !lastError || !clearStatus) {
    fprintf(stderr, "error: a symbol is missing from %s\n", argv[1]);
    return 1;
  }
  for (int i = 2; i < argc; i += 2) {
    int64_t m = strtoll(argv[i], NULL, 0), n = strtoll(argv[i + 1], NULL, 0);
    MemRef2 a = {NULL, NULL, 0, {m, 0}, {0, 1}};
    MemRef2 b = {NULL, NULL, 0, {0, n}, {n, 1}};
    MemRef2 c = {NULL, NULL, 0, {-1, -1}, {0, 0}};
    product(&c, &a, &b);
    printf("%s x 0 x %s: status %d, result %lld x %lld: %s\n", argv[i],
           argv[i + 1], status(), (long long)c.sizes[0],
           (long long)c.sizes[1], lastError());
    clearStatus();
    if (readResult && c.sizes[0] > 0 && c.sizes[1] > 0) {
      fflush(stdout);
      volatile float first = c.aligned[0];
      printf("read %f on the host\n", first);
    }
  }
  return 0;
}
