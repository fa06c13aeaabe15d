/* ptx-bench's paired scaling rows (ptx-pairs.h). */
#include "ptx-pairs.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench-median.h"

/* The machine's CPU time so far, and the part of it that a hypervisor gave to others while this
 * guest's CPUs wanted to run (the `steal` column of /proc/stat), in its ticks; false where there
 * is no such file. */
static bool cpu_ticks(unsigned long long *total, unsigned long long *steal) {
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long v[8] = {0};
    int n = f != NULL ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                               &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])
                      : 0;
    if (f != NULL) fclose(f);
    *total = 0;
    for (int i = 0; i < 8; i++) *total += v[i];
    *steal = v[7];
    return n == 8;
}

/* Wall seconds a launch, over launches on `threads` host threads until `seconds` have passed (at
 * least two), after one untimed launch: the one that wakes the pool's sleeping helpers, or finds
 * their kept blocks the wrong shape; 0 when a launch fails. */
static double segment(int threads, ptx_pairs_launch launch, void *user, double seconds) {
    char n[16];
    snprintf(n, sizeof n, "%d", threads);
    setenv("CUSHIM_MOCK_THREADS", n, 1);
    if (!launch(user)) return 0;
    unsigned launches = 0;
    double start = ptx_native_wall(), elapsed = 0;
    while (launches < 2 || elapsed < seconds) {
        if (!launch(user)) return 0;
        launches++;
        elapsed = ptx_native_wall() - start;
    }
    return elapsed / launches;
}

static void swap(double *a, double *b) {
    double t = *a;
    *a = *b;
    *b = t;
}

void ptx_pairs_header(const ptx_pairs *p) {
    printf("\npaired scaling from 1 to %d host threads (one process: each row's launches on 1 and "
           "on %d in turn, %.2f s each, %d rounds; `rows (C)` the C reference on 1 and %d in the "
           "same rounds; medians, lowest and highest of the rounds):\n",
           p->threads, p->threads, p->seconds, p->rounds, p->threads);
    printf("%-12s %8s %8s %8s %10s %12s %8s\n", "kernel", "median", "lowest", "highest", "rows (C)",
           "of rows (C)", "steal %");
}

bool ptx_pairs_row(const ptx_pairs *p, const char *name, ptx_pairs_launch launch, void *user) {
    double interp[PTX_PAIRS_MAX], c[PTX_PAIRS_MAX], rel[PTX_PAIRS_MAX];
    ptx_native_grid rows = p->rows;
    unsigned long long t0, s0, t1, s1;
    bool ticks = cpu_ticks(&t0, &s0);
    int n = 0;
    for (; n < p->rounds && n < PTX_PAIRS_MAX; n++) {
        /* In turn 1 then N, N then 1: a drift within the round falls on both sides alike. */
        bool flip = n % 2 != 0;
        int first = flip ? p->threads : 1, second = flip ? 1 : p->threads;
        double one = segment(first, launch, user, p->seconds);
        double many = segment(second, launch, user, p->seconds);
        double c1 = ptx_native_grid_time(&rows, first, p->seconds / 2);
        double cn = ptx_native_grid_time(&rows, second, p->seconds / 2);
        if (flip) {
            swap(&one, &many);
            swap(&c1, &cn);
        }
        if (one <= 0 || many <= 0) {
            printf("%-12s a launch failed\n", name);
            return false;
        }
        interp[n] = one / many;
        c[n] = cn > 0 ? c1 / cn : 0;
        rel[n] = c[n] > 0 ? interp[n] / c[n] : 0;
    }
    ticks = ticks && cpu_ticks(&t1, &s1) && t1 > t0;
    double median = bench_median(interp, n); /* which sorts them: lowest first, highest last */
    printf("%-12s %8.2f %8.2f %8.2f %10.2f %12.2f", name, median, interp[0], interp[n - 1],
           bench_median(c, n), bench_median(rel, n));
    if (ticks) {
        printf(" %8.2f\n", 100.0 * (double)(s1 - s0) / (double)(t1 - t0));
    } else {
        printf(" %8s\n", "n/a");
    }
    return true;
}
