//===- sgemm.c - time OpenBLAS's cblas_sgemm on one shape -----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
// Usage: sgemm M N K REPEAT
//
// Times C = A * B (row-major, f32, A: MxK, B: KxN) after one warm-up call
// and prints "run: median X ms, min Y ms, max Z ms over N runs", the line
// `tessera-run --timing` prints. The thread count is OpenBLAS's
// (OPENBLAS_NUM_THREADS).
//
//===----------------------------------------------------------------------===//

#include <cblas.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static float *randomMatrix(long size) {
  float *m = aligned_alloc(64, ((size * sizeof(float) + 63) / 64) * 64);
  if (!m) {
    fprintf(stderr, "sgemm: out of memory\n");
    exit(1);
  }
  for (long i = 0; i < size; ++i)
    m[i] = (float)((double)rand() / RAND_MAX * 2 - 1);
  return m;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: sgemm M N K REPEAT\n");
    return 1;
  }
  long m = atol(argv[1]), n = atol(argv[2]), k = atol(argv[3]);
  int repeat = atoi(argv[4]);
  if (m < 1 || n < 1 || k < 1 || repeat < 1) {
    fprintf(stderr, "sgemm: bad arguments\n");
    return 1;
  }
  float *a = randomMatrix(m * k), *b = randomMatrix(k * n),
        *c = randomMatrix(m * n);
  double *ms = malloc(repeat * sizeof(double));
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b,
              n, 0.0f, c, n);
  for (int i = 0; i < repeat; ++i) {
    double start = now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k,
                b, n, 0.0f, c, n);
    ms[i] = (now() - start) * 1e3;
  }
  qsort(ms, repeat, sizeof(double), compare);
  double median =
      repeat % 2 ? ms[repeat / 2] : (ms[repeat / 2 - 1] + ms[repeat / 2]) / 2;
  printf("run: median %.3f ms, min %.3f ms, max %.3f ms over %d runs\n", median,
         ms[0], ms[repeat - 1], repeat);
  free(a);
  free(b);
  free(c);
  free(ms);
  return 0;
}
