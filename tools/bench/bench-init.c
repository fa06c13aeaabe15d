/* cushim-bench --init: each initialisation timed in a process of its own, since a driver
 * initialises once per process. The children are this program run again (fork + exec), so that
 * each starts as a fresh program would: libcushim.so is mapped by the dynamic linker before
 * main, libcuda is not. Only the initialisation itself is timed, inside the child. */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-init.h"
#include "bench-median.h"
#include "bench-ops.h"

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* ------------------------------------------------------------------------------------------ */
/* The child                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/* What a program that loads libcuda by hand does before its first call: the library, then
 * cuInit. The same path as cushim would take: CUSHIM_DRIVER when set, else libcuda.so.1. */
static int child_direct(void) {
    const char *env = getenv("CUSHIM_DRIVER");
    const char *path = (env != NULL && env[0] != '\0') ? env : "libcuda.so.1";
    int64_t t0 = now_ns();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "cushim-bench: no usable CUDA driver: dlopen(\"%s\") failed: %s\n", path,
                dlerror());
        return BENCH_RC_NO_DRIVER;
    }
    PFN_cuInit_v2000 init;
    *(void **)&init = dlsym(h, "cuInit");
    if (init == NULL) {
        fprintf(stderr, "cushim-bench: no usable CUDA driver: %s exports no cuInit\n", path);
        return BENCH_RC_NO_DRIVER;
    }
    CUresult r = init(0);
    int64_t t1 = now_ns();
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cushim-bench: no usable CUDA driver: cuInit(0) failed with %s\n",
                bench_error_name(r));
        return BENCH_RC_NO_DRIVER;
    }
    printf("%lld 0\n", (long long)(t1 - t0));
    return BENCH_RC_OK;
}

static int child_cushim(void) {
    int64_t t0 = now_ns();
    CUresult r = cushim_init();
    int64_t t1 = now_ns();
    const cushim_driver_info *info = cushim_driver_state();
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cushim-bench: no usable CUDA driver (%s): %s\n", bench_error_name(r),
                info->message);
        return BENCH_RC_NO_DRIVER;
    }
    printf("%lld %u\n", (long long)(t1 - t0), info->entries_resolved);
    return BENCH_RC_OK;
}

int bench_init_child(const char *which) {
    if (strcmp(which, "direct") == 0) return child_direct();
    if (strcmp(which, "cushim") == 0) return child_cushim();
    fprintf(stderr, "cushim-bench: %s takes direct or cushim\n", BENCH_INIT_CHILD_FLAG);
    return BENCH_RC_USAGE;
}

/* ------------------------------------------------------------------------------------------ */
/* The parent                                                                                 */
/* ------------------------------------------------------------------------------------------ */

/* Runs one child and reads its line. Returns the child's exit code (BENCH_RC_FAILED when it
 * could not run or said nothing readable). */
static int run_child(const char *which, double *ms, unsigned *entries) {
    int fds[2];
    if (pipe(fds) != 0) {
        fprintf(stderr, "cushim-bench: pipe: %s\n", strerror(errno));
        return BENCH_RC_FAILED;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "cushim-bench: fork: %s\n", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return BENCH_RC_FAILED;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl("/proc/self/exe", "cushim-bench", BENCH_INIT_CHILD_FLAG, which, (char *)NULL);
        fprintf(stderr, "cushim-bench: exec /proc/self/exe: %s\n", strerror(errno));
        _exit(BENCH_RC_FAILED);
    }
    close(fds[1]);
    char line[128];
    size_t len = 0;
    for (;;) {
        ssize_t got = read(fds[0], line + len, sizeof line - 1 - len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        len += (size_t)got;
        if (len == sizeof line - 1) break;
    }
    line[len] = '\0';
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return BENCH_RC_FAILED;
    }
    if (!WIFEXITED(status)) {
        fprintf(stderr, "cushim-bench: the %s child did not exit normally\n", which);
        return BENCH_RC_FAILED;
    }
    if (WEXITSTATUS(status) != 0) return WEXITSTATUS(status);
    long long ns;
    if (sscanf(line, "%lld %u", &ns, entries) != 2) {
        fprintf(stderr, "cushim-bench: the %s child printed '%s'\n", which, line);
        return BENCH_RC_FAILED;
    }
    *ms = (double)ns / 1e6;
    return BENCH_RC_OK;
}

static void json_list(const double *v, int n) {
    printf("[");
    for (int i = 0; i < n; i++) {
        printf("%s%.3f", i ? ", " : "", v[i]);
    }
    printf("]");
}

int bench_init_compare(int runs, bool json) {
    double *v = malloc(sizeof *v * 4 * (size_t)runs);
    if (v == NULL) return BENCH_RC_FAILED;
    double *direct = v, *shim = v + runs, *sorted_d = v + 2 * runs, *sorted_s = v + 3 * runs;
    unsigned entries = 0, ignored;
    for (int i = 0; i < runs; i++) {
        int rc = run_child("direct", &direct[i], &ignored);
        if (rc == BENCH_RC_OK) rc = run_child("cushim", &shim[i], &entries);
        if (rc != BENCH_RC_OK) {
            if (rc == BENCH_RC_NO_DRIVER) {
                fprintf(stderr, "cushim-bench: nothing measured (exit %d)\n", BENCH_RC_NO_DRIVER);
            }
            free(v);
            return rc;
        }
    }
    memcpy(sorted_d, direct, sizeof *v * (size_t)runs);
    memcpy(sorted_s, shim, sizeof *v * (size_t)runs);
    double md = bench_median(sorted_d, runs), ms = bench_median(sorted_s, runs);
    if (json) {
        printf("{\n  \"tool\": \"cushim-bench\",\n  \"mode\": \"init\",\n  \"runs\": %d,\n", runs);
        printf("  \"direct_ms\": %.3f,\n  \"cushim_ms\": %.3f,\n  \"difference_ms\": %.3f,\n", md,
               ms, ms - md);
        printf("  \"entries_resolved\": %u,\n  \"direct_runs_ms\": ", entries);
        json_list(direct, runs);
        printf(",\n  \"cushim_runs_ms\": ");
        json_list(shim, runs);
        printf("\n}\n");
    } else {
        printf("cushim-bench --init: %d fresh processes of each kind, alternating; medians\n\n",
               runs);
        printf("%-50s %10.3f ms\n", "dlopen(driver) + cuInit(0)", md);
        char label[80];
        snprintf(label, sizeof label, "cushim_init() (also resolves %u entries)", entries);
        printf("%-50s %10.3f ms\n", label, ms);
        printf("%-50s %+10.3f ms\n", "difference", ms - md);
    }
    free(v);
    return BENCH_RC_OK;
}
