// Launches one kernel of a code object through the HIP API of the library
// named on the command line (the AMDGCN emulator) and prints what the
// launch returned:
//   hip-launch LIBRARY HSACO KERNEL N BLOCK
// The kernel gets a buffer of N floats (poisoned with -1) and N; a
// successful launch prints the buffer's first elements.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*Init)(unsigned);
typedef int (*Load)(void **, const void *);
typedef int (*Get)(void **, void *, const char *);
typedef int (*Malloc)(void **, size_t);
typedef int (*Memcpy)(void *, const void *, size_t, int);
typedef int (*Launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, unsigned, void *, void **, void **);
typedef const char *(*Describe)(int);

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s LIBRARY HSACO KERNEL N BLOCK\n", argv[0]);
    return 2;
  }
  void *hip = dlopen(argv[1], RTLD_NOW);
  if (!hip) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  Init init = (Init)dlsym(hip, "hipInit");
  Load load = (Load)dlsym(hip, "hipModuleLoadData");
  Get get = (Get)dlsym(hip, "hipModuleGetFunction");
  Malloc alloc = (Malloc)dlsym(hip, "hipMalloc");
  Memcpy copy = (Memcpy)dlsym(hip, "hipMemcpy");
  Launch launch = (Launch)dlsym(hip, "hipModuleLaunchKernel");
  Describe name = (Describe)dlsym(hip, "hipGetErrorName");
  Describe describe = (Describe)dlsym(hip, "hipGetErrorString");

  FILE *file = fopen(argv[2], "rb");
  if (!file) {
    perror(argv[2]);
    return 2;
  }
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  rewind(file);
  char *image = malloc(size);
  if (fread(image, 1, size, file) != (size_t)size)
    return 2;
  fclose(file);

  int n = atoi(argv[4]);
  unsigned block = (unsigned)atoi(argv[5]);
  void *module, *kernel, *buffer;
  int status;
  if ((status = init(0)) || (status = load(&module, image)) ||
      (status = get(&kernel, module, argv[3])) ||
      (status = alloc(&buffer, sizeof(float) * (n > 0 ? n : 1)))) {
    printf("%s: %s\n", name(status), describe(status));
    return 1;
  }
  float *host = malloc(sizeof(float) * (n > 0 ? n : 1));
  for (int i = 0; i < n; ++i)
    host[i] = -1;
  copy(buffer, host, sizeof(float) * n, 1);
  void *params[] = {&buffer, &n};
  status = launch(kernel, 1, 1, 1, block, 1, 1, 0, NULL, params, NULL);
  printf("%s: %s\n", name(status), describe(status));
  if (status == 0) {
    copy(host, buffer, sizeof(float) * n, 2);
    for (int i = 0; i < n && i < 4; ++i)
      printf("%g\n", host[i]);
  }
  return status != 0;
}
