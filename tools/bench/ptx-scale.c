/* ptx-bench's scaling table (ptx-scale.h). The interpreter's figures are the two children's own
 * rows (ms a launch, read from their output); the native ones are measured in this process,
 * after the children, on host copies of the kernels' data. */
#include "ptx-scale.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-median.h"
#include "ptx-native.h"

/* A row of the main table: "NAME THREADS LAUNCHES MS ...". */
static void keep(ptx_scale *s, const char *line) {
    char name[32], threads[16];
    unsigned launches;
    double ms;
    if (s->nrows >= PTX_SCALE_ROWS ||
        sscanf(line, "%31s %15s %u %lf", name, threads, &launches, &ms) != 4 || ms <= 0)
        return;
    snprintf(s->row[s->nrows].name, sizeof s->row[0].name, "%s", name);
    snprintf(s->row[s->nrows].threads, sizeof s->row[0].threads, "%s", threads);
    s->row[s->nrows].ms = ms;
    s->nrows++;
}

int ptx_scale_child(ptx_scale *s, const char *threads, char **argv) {
    int fd[2];
    fflush(stdout);
    if (pipe(fd) != 0) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        setenv("CUSHIM_MOCK_THREADS", threads, 1);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(fd[1]);
    FILE *in = pid > 0 ? fdopen(fd[0], "r") : NULL;
    char line[512];
    while (in != NULL && fgets(line, sizeof line, in) != NULL) {
        fputs(line, stdout);
        fflush(stdout);
        keep(s, line);
    }
    if (in != NULL) {
        fclose(in);
    } else {
        close(fd[0]);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* ms of the row `name` run on `threads`: the median of the rounds' rows, 0 when there is none. */
static double ms_of(const ptx_scale *s, const char *name, const char *threads) {
    double v[PTX_SCALE_ROUNDS];
    int n = 0;
    for (int i = 0; i < s->nrows && n < PTX_SCALE_ROUNDS; i++) {
        if (strcmp(s->row[i].name, name) == 0 && strcmp(s->row[i].threads, threads) == 0)
            v[n++] = s->row[i].ms;
    }
    return bench_median(v, n);
}

static void ratio(double one, double many) {
    if (one > 0 && many > 0) {
        printf(" %10.2f", one / many);
    } else {
        printf(" %10s", "n/a");
    }
}

void ptx_scale_print(const ptx_scale *s, int threads, int rounds, bool quick) {
    int n = quick ? 1 << 16 : 1 << 20, dim = quick ? 64 : 256;
    float *x = ptx_native_floats((size_t)n), *y = ptx_native_floats((size_t)n),
          *ma = ptx_native_floats((size_t)dim * dim), *mb = ptx_native_floats((size_t)dim * dim),
          *c = ptx_native_floats((size_t)dim * dim);
    int *in = ptx_native_ints((size_t)n);
    static const char *kernels[] = {"saxpy", "matmul", "reduce", "alu (C)", "rows (C)"};
    char many[16];
    snprintf(many, sizeof many, "%d", threads);
    printf("\nscaling from 1 to %d host threads (wall time a launch on 1 over that on %d", threads,
           threads);
    if (rounds > 1) printf("; medians of %d rounds, 1 and %d in turn", rounds, threads);
    printf("):\n%-10s %10s %10s %10s %12s %12s\n", "kernel", "interp", "interp+jit", "native",
           "native ms 1", "native ms N");
    for (int k = 0; k < 5; k++) { /* the last two: native only (no kernel) */
        char jit[32];
        snprintf(jit, sizeof jit, "%s+jit", kernels[k]);
        ptx_native_grid g = {k, n, dim, 2.0f, x, y, ma, mb, c, in, 0};
        bool have = x && y && ma && mb && c && in;
        double one[PTX_SCALE_ROUNDS], par[PTX_SCALE_ROUNDS];
        int got = 0;
        for (; have && got < rounds && got < PTX_SCALE_ROUNDS; got++) {
            one[got] = ptx_native_grid_time(&g, 1, quick ? 0.1 : 0.5);
            par[got] = ptx_native_grid_time(&g, threads, quick ? 0.1 : 0.5);
        }
        double m1 = bench_median(one, got), mn = bench_median(par, got);
        printf("%-10s", kernels[k]);
        ratio(ms_of(s, kernels[k], "1"), ms_of(s, kernels[k], many));
        ratio(ms_of(s, jit, "1"), ms_of(s, jit, many));
        ratio(m1, mn);
        printf(" %12.4f %12.4f\n", m1 * 1e3, mn * 1e3);
    }
    free(x);
    free(y);
    free(ma);
    free(mb);
    free(c);
    free(in);
}
