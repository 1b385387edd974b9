/* Loads a compiled library, calls it (which prepares its dispatch's
 * selection table), unloads it, CYCLES times, and prints how much resident
 * memory the cycles after the first kept: the library's destructor gives
 * the tables back (quilt_rt_release), so it stays flat.
 *
 *   load-unload LIBRARY CYCLES */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2D;

typedef void (*Matmul)(MemRef2D *, MemRef2D *, MemRef2D *);

static long residentKiB(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld %ld", &pages, &resident) != 2)
    exit(3);
  fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static int cycle(const char *path) {
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "error: %s\n", dlerror());
    return 0;
  }
  Matmul matmul = (Matmul)dlsym(library, "_mlir_ciface_matmul");
  if (!matmul) {
    fprintf(stderr, "error: no _mlir_ciface_matmul\n");
    return 0;
  }
  float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4] = {0};
  MemRef2D ad = {a, a, 0, {2, 3}, {3, 1}}, bd = {b, b, 0, {3, 2}, {2, 1}},
           cd = {c, c, 0, {2, 2}, {2, 1}};
  matmul(&ad, &bd, &cd);
  dlclose(library);
  /* [1 2 3; 4 5 6] x [1 0; 0 1; 1 1] = [4 5; 10 11] */
  return c[0] == 4 && c[1] == 5 && c[2] == 10 && c[3] == 11;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  int cycles = atoi(argv[2]);
  if (!cycle(argv[1]))
    return 1;
  long before = residentKiB();
  for (int i = 1; i < cycles; ++i)
    if (!cycle(argv[1]))
      return 1;
  long grown = residentKiB() - before;
  printf("%d cycles correct; resident memory grew by %ld KiB (%s)\n", cycles,
         grown, grown < 2048 ? "flat" : "LEAKS");
  return 0;
}
