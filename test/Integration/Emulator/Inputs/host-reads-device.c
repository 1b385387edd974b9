/* Calls result-sizes.mlir's @product, compiled for a GPU target, at
 * M = 3, N = 4, K = 0 (a zero-filled result in device memory, no input to
 * read), then reads the result directly: a fault on a GPU, and on the
 * emulators, which map device memory inaccessible to host code. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2;

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
  void (*product)(MemRef2 *, MemRef2 *, MemRef2 *) =
      (void (*)(MemRef2 *, MemRef2 *, MemRef2 *))dlsym(library,
                                                       "_mlir_ciface_product");
  if (!product) {
    fprintf(stderr, "error: no _mlir_ciface_product in %s\n", argv[1]);
    return 1;
  }
  MemRef2 a = {NULL, NULL, 0, {3, 0}, {0, 1}};
  MemRef2 b = {NULL, NULL, 0, {0, 4}, {4, 1}};
  MemRef2 c = {NULL, NULL, 0, {0, 0}, {0, 0}};
  product(&c, &a, &b);
  printf("result %lld x %lld in device memory\n", (long long)c.sizes[0],
         (long long)c.sizes[1]);
  fflush(stdout);
  volatile float first = c.aligned[0];
  printf("read %f from device memory on the host\n", first);
  return 0;
}
