/* The mock's PTX interpreter, timed: interpreted thread-instructions per second for saxpy, a
 * shared-memory matrix-multiply tile and a shared-memory + warp-shuffle reduction (the kernel
 * suite's own PTX, carried in the binary), on one host thread and on all of them.
 *
 *   CUSHIM_DRIVER=$PWD/build/mock/libcushim-mock.so build/tools/bench/ptx-bench [--quick]
 *
 * Without CUSHIM_MOCK_THREADS the program runs itself twice, with CUSHIM_MOCK_THREADS=1 and with
 * the number of cores; with it, it measures that setting only. Each row gives the rate per second
 * of wall time and per second of the process's CPU time (the figure per core, which a machine
 * busy with other work does not lower). The count of thread-instructions
 * comes from the mock (cushim_mock_ptx_instructions) where it offers one, else from the
 * per-thread counts below, read off the PTX (saxpy: 20 instructions a thread when every thread
 * is in range). The last two columns compare each kernel with the same computation in C
 * (ptx-native.c, -O3 for this CPU, one host thread): its CPU time a run, and how many times that
 * the interpreter's CPU time a launch is.
 *
 * With --only NAME,... only those rows run ("saxpy", "saxpy+jit", ...; with --checks, the kernels
 * named).
 *
 * With --checks (after --quick, if both) each kernel runs with each of CUSHIM_MOCK_CHECK's
 * checks in turn, set through the mock's control API in the same process, unchecked rows
 * interleaved with the checked ones (off, memcheck, racecheck, initcheck, synccheck, all, off),
 * and a last column gives each row's CPU time a launch over the mean of the two unchecked rows.
 *
 * Each kernel has two rows: the interpreter alone (CUSHIM_MOCK_JIT=off) and with the compiling
 * tier (`+jit`, CUSHIM_MOCK_JIT=on: compiled at the launch that warms up, outside the timing),
 * one after the other in the same process. --checks rows run the interpreter only (the checks
 * take no compiled code), so their ratios are over the unchecked interpreter, tier off.
 *
 * Run without CUSHIM_MOCK_THREADS (and without --checks), it ends with a scaling table: each
 * kernel's wall time a launch on 1 host thread over that on all, interpreted and with the tier,
 * beside the same computation in C split block by block over 1 and all host threads
 * (ptx-scale.c): how much of the interpreter's shortfall the machine itself imposes. With
 * --rounds N the two runs, and the C on 1 and on all, go in turn N times, and the table gives
 * the medians: on a machine whose cores' speed moves from second to second (a virtual machine's
 * CPUs whose other hyperthreads other guests use), one pair of runs says little. With --pairs N
 * it prints only a scaling table measured in this one process, each row's launches on 1 and on
 * all host threads in turn for a fraction of a second, N rounds (ptx-pairs.c). */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cushim.h"
#include "cushim_mock.h"
#include "ptx-native.h"
#include "ptx-pairs.h"
#include "ptx-scale.h"

extern const char ptx_bench_saxpy[], ptx_bench_matmul[], ptx_bench_reduce[];

typedef unsigned long long (*count_fn)(void);

/* Seconds on `clock`: CLOCK_MONOTONIC for the wall, CLOCK_PROCESS_CPUTIME_ID for the CPU time
 * of every thread of the process, which a busy machine does not inflate. */
static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what) {
    fprintf(stderr, "ptx-bench: %s: %s\n", what, cushim_last_error());
    exit(1);
}

/* The mock's count of thread-instructions run, or NULL when it keeps none. */
static count_fn mock_counter(void) {
    const char *path = getenv("CUSHIM_DRIVER");
    void *h = path != NULL ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    void *sym = h != NULL ? dlsym(h, "cushim_mock_ptx_instructions") : NULL;
    count_fn f = NULL;
    memcpy(&f, &sym, sizeof f);
    return f;
}

/* Host copies of the kernels' data, for the native rows. */
typedef struct host_data {
    int n, dim;
    float a, *x, *y, *ma, *mb, *c;
    int *in;
} host_data;

static volatile int native_sink; /* keeps the reduction's result alive */

static void native_saxpy(host_data *h) { ptx_native_saxpy(h->n, h->a, h->x, h->y); }
static void native_matmul(host_data *h) {
    ptx_native_matmul(h->ma, h->mb, h->c, h->dim, h->dim, h->dim);
}
static void native_reduce(host_data *h) { native_sink += ptx_native_reduce(h->in, h->n); }

/* CPU seconds of one native run: one to warm up, then runs until `seconds` have passed (at
 * least twice). */
static double native_time(void (*run)(host_data *), host_data *h, double seconds) {
    run(h);
    unsigned runs = 0;
    double start = now(CLOCK_PROCESS_CPUTIME_ID), elapsed = 0;
    while (runs < 2 || elapsed < seconds) {
        run(h);
        runs++;
        elapsed = now(CLOCK_PROCESS_CPUTIME_ID) - start;
    }
    return elapsed / runs;
}

static float *host_floats(size_t n) {
    float *p = ptx_native_floats(n);
    if (p == NULL) die("host memory");
    return p;
}

static int *host_ints(size_t n) {
    int *p = ptx_native_ints(n);
    if (p == NULL) die("host memory");
    return p;
}

typedef struct workload {
    const char *name, *entry, *ptx;
    cushim_dim3 grid, block;
    void *params[6];
    double per_thread; /* thread-instructions per thread when the mock counts none; 0: unknown */
    void (*native)(host_data *);
} workload;

static CUdeviceptr zeroed(size_t bytes) {
    CUdeviceptr p = 0;
    if (cushim_driver()->cuMemAlloc(&p, bytes) != CUDA_SUCCESS ||
        cushim_driver()->cuMemsetD8(p, 0, bytes) != CUDA_SUCCESS) {
        die("device memory");
    }
    return p;
}

/* A workload's kernel, loaded, and one launch of it with its synchronize. */
typedef struct loaded {
    cushim_context *ctx;
    cushim_module *m;
    cushim_function *f;
    cushim_launch_config cfg;
    void **params;
} loaded;

static bool launch_once(void *arg) {
    loaded *l = arg;
    return cushim_launch(l->f, &l->cfg, l->params) == CUDA_SUCCESS &&
           cushim_context_synchronize(l->ctx) == CUDA_SUCCESS;
}

/* Loads w's kernel and launches it once to warm up (and, with the tier on, to compile it); a
 * kernel the mock cannot run gets a row that says why (false), and the others still run. */
static bool load(loaded *l, cushim_context *ctx, workload *w, const char *threads) {
    *l = (loaded){.ctx = ctx, .params = w->params};
    l->cfg = (cushim_launch_config){
        .grid = w->grid, .block = w->block, .shared_mem_bytes = 0, .stream = NULL};
    if (cushim_module_load_data(&l->m, ctx, w->ptx) != CUDA_SUCCESS ||
        cushim_module_function(&l->f, l->m, w->entry) != CUDA_SUCCESS || !launch_once(l)) {
        printf("%-10s %7s failed: %s\n", w->name, threads, cushim_last_error());
        cushim_module_release(l->m);
        return false;
    }
    return true;
}

/* Launches w until `seconds` have passed (at least twice, after one launch to warm up) and
 * prints its row; its CPU seconds a launch (0: it failed). */
static double measure(cushim_context *ctx, workload *w, double seconds, const char *threads,
                      count_fn count, host_data *h) {
    loaded l;
    if (!load(&l, ctx, w, threads)) return 0;
    unsigned long long before = count ? count() : 0;
    unsigned launches = 0;
    double start = now(CLOCK_MONOTONIC), cpu_start = now(CLOCK_PROCESS_CPUTIME_ID), elapsed = 0;
    while (launches < 2 || elapsed < seconds) {
        if (!launch_once(&l)) die(w->name);
        launches++;
        elapsed = now(CLOCK_MONOTONIC) - start;
    }
    double threads_per_launch =
        (double)w->grid.x * w->grid.y * w->grid.z * w->block.x * w->block.y * w->block.z;
    double insns =
        count ? (double)(count() - before) : w->per_thread * threads_per_launch * launches;
    double cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
    double native = w->native != NULL ? native_time(w->native, h, seconds) : 0;
    printf("%-10s %7s %9u %12.3f %14.0f", w->name, threads, launches, elapsed / launches * 1e3,
           insns / launches);
    if (insns > 0) {
        printf(" %12.1f %14.1f", insns / elapsed * 1e-6, insns / cpu * 1e-6);
    } else {
        printf(" %12s %14s", "n/a", "n/a");
    }
    if (native > 0)
        printf(" %10.3f %9.1f%s\n", native * 1e3, cpu / launches / native,
               insns > 0 && !count ? " (fixed counts)" : "");
    cushim_module_release(l.m);
    return cpu / launches;
}

/* w's row of the paired scaling table (ptx-pairs.h). */
static void paired_row(cushim_context *ctx, workload *w, const ptx_pairs *p) {
    loaded l;
    if (!load(&l, ctx, w, "paired")) return;
    if (!ptx_pairs_row(p, w->name, launch_once, &l)) die(w->name);
    cushim_module_release(l.m);
}

/* Each kernel with each check, in the same process: unchecked before and after. */
static void checked_rows(cushim_context *ctx, workload *w, double seconds, const char *threads,
                         count_fn count, host_data *h) {
    cushim_mock_api api;
    if (!cushim_mock_open(&api, NULL) || api.set_check == NULL) die("the mock's control API");
    static const struct {
        const char *name;
        unsigned bits;
    } rows[] = {{"off", 0},
                {"memcheck", CUSHIM_MOCK_CHECK_MEMCHECK},
                {"racecheck", CUSHIM_MOCK_CHECK_RACECHECK},
                {"initcheck", CUSHIM_MOCK_CHECK_INITCHECK},
                {"synccheck", CUSHIM_MOCK_CHECK_SYNCCHECK},
                {"all", CUSHIM_MOCK_CHECK_ALL},
                {"off", 0}};
    enum { NROWS = sizeof rows / sizeof rows[0] };
    double cpu[NROWS];
    for (int i = 0; i < NROWS; i++) {
        api.set_check(NULL, rows[i].bits, false);
        printf("%-10s ", rows[i].name);
        workload one = *w;
        one.native = NULL;
        cpu[i] = measure(ctx, &one, seconds, threads, count, h);
        printf("\n");
    }
    api.set_check(NULL, 0, false);
    double off = (cpu[0] + cpu[NROWS - 1]) / 2;
    printf(
        "%-8s check ratios (CPU a launch over the unchecked interpreter, compiling tier off; the "
        "two unchecked rows %.3f):",
        w->name, cpu[0] > 0 ? cpu[NROWS - 1] / cpu[0] : 0);
    for (int i = 1; i + 1 < NROWS; i++)
        printf(" %s %.2f", rows[i].name, off > 0 ? cpu[i] / off : 0);
    printf("\n");
}

/* --only's list (comma-separated row names, "saxpy+jit" for a tier row): NULL runs every row. */
static bool wanted(const char *only, const char *name) {
    if (only == NULL) return true;
    size_t n = strlen(name);
    for (const char *p = only;; p++) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0) return true;
        p += len;
        if (*p == 0) return false;
    }
}

/* Each wanted row measured: alone, with each check (checks), or in pairs of 1 and N host threads
 * (pairs > 0 rounds, N the CUSHIM_MOCK_THREADS this run was given). */
static void run_all(bool quick, bool checks, const char *only, int pairs) {
    if (cushim_init() != CUDA_SUCCESS) die("cushim_init");
    cushim_context *ctx = NULL;
    if (cushim_context_primary(&ctx, 0) != CUDA_SUCCESS ||
        cushim_driver()->cuCtxSetCurrent(cushim_context_raw(ctx)) != CUDA_SUCCESS) {
        die("context");
    }
    const char *threads = getenv("CUSHIM_MOCK_THREADS");
    count_fn count = mock_counter();
    unsigned n = quick ? 1u << 16 : 1u << 20, dim = quick ? 64 : 256;
    float a = 2.0f;
    CUdeviceptr x = zeroed(n * sizeof(float)), y = zeroed(n * sizeof(float)),
                c = zeroed((size_t)dim * dim * sizeof(float)),
                ma = zeroed((size_t)dim * dim * sizeof(float)),
                mb = zeroed((size_t)dim * dim * sizeof(float)), total = zeroed(sizeof(int));
    int in = (int)n, idim = (int)dim;
    host_data h = {(int)n,
                   (int)dim,
                   a,
                   host_floats(n),
                   host_floats(n),
                   host_floats((size_t)dim * dim),
                   host_floats((size_t)dim * dim),
                   host_floats((size_t)dim * dim),
                   host_ints(n)};
    workload w[] = {
        {"saxpy",
         "k_saxpy",
         ptx_bench_saxpy,
         CUSHIM_DIM3(n / 256),
         CUSHIM_DIM3(256),
         {&in, &a, &x, &y},
         20,
         native_saxpy},
        {"matmul",
         "k_matmul",
         ptx_bench_matmul,
         CUSHIM_DIM3(dim / 16, dim / 16),
         CUSHIM_DIM3(16, 16),
         {&ma, &mb, &c, &idim, &idim, &idim},
         0,
         native_matmul},
        {"reduce",
         "k_reduce",
         ptx_bench_reduce,
         CUSHIM_DIM3(n / 256),
         CUSHIM_DIM3(256),
         {&x, &in, &total},
         0,
         native_reduce},
    };
    ptx_pairs p = {.threads = threads ? atoi(threads) : 1,
                   .rounds = pairs,
                   .seconds = quick ? 0.05 : 0.2,
                   .rows = {.kernel = PTX_NATIVE_ROWS, .n = (int)n, .dim = (int)dim}};
    if (pairs > 0) ptx_pairs_header(&p);
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        if (checks) {
            if (!wanted(only, w[i].name)) continue;
            setenv("CUSHIM_MOCK_JIT", "off", 1);
            checked_rows(ctx, &w[i], quick ? 0.2 : 1.0, threads ? threads : "default", count, &h);
            continue;
        }
        char name[32];
        workload jit = w[i];
        snprintf(name, sizeof name, "%s+jit", w[i].name);
        jit.name = name;
        for (int tier = 0; tier < 2; tier++) {
            workload *row = tier ? &jit : &w[i];
            setenv("CUSHIM_MOCK_JIT", tier ? "on" : "off", 1);
            if (!wanted(only, row->name)) continue;
            if (pairs > 0) {
                paired_row(ctx, row, &p);
            } else {
                measure(ctx, row, quick ? 0.2 : 1.0, threads ? threads : "default", count, &h);
            }
        }
    }
    free(h.x);
    free(h.y);
    free(h.ma);
    free(h.mb);
    free(h.c);
    free(h.in);
    cushim_driver()->cuCtxSetCurrent(NULL);
    cushim_context_release(ctx);
}

int main(int argc, char **argv) {
    bool quick = false, checks = false;
    const char *only = NULL;
    int rounds = 1, pairs = 0;
    for (int i = 1; i < argc; i++) {
        quick |= strcmp(argv[i], "--quick") == 0;
        checks |= strcmp(argv[i], "--checks") == 0;
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = atoi(argv[++i]);
        if (strcmp(argv[i], "--pairs") == 0 && i + 1 < argc) pairs = atoi(argv[++i]);
    }
    if (rounds < 1 || rounds > PTX_SCALE_ROUNDS) {
        fprintf(stderr, "ptx-bench: --rounds takes 1 to %d\n", PTX_SCALE_ROUNDS);
        return 2;
    }
    if (pairs < 0 || pairs > PTX_PAIRS_MAX || (pairs > 0 && checks)) {
        fprintf(stderr, "ptx-bench: --pairs takes 1 to %d, and not with --checks\n", PTX_PAIRS_MAX);
        return 2;
    }
    char cores[16];
    snprintf(cores, sizeof cores, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    /* Paired, this process measures both settings itself. */
    if (pairs > 0 && getenv("CUSHIM_MOCK_THREADS") == NULL) setenv("CUSHIM_MOCK_THREADS", cores, 1);
    if (getenv("CUSHIM_MOCK_THREADS") == NULL) {
        printf("%-10s %7s %9s %12s %14s %12s %14s %10s %9s\n", "kernel", "threads", "launches",
               "ms/launch", "insns/launch", "M insns/s", "M insns/cpu-s", "native ms", "x native");
        static ptx_scale scale;
        int r = 0;
        for (int k = 0; k < rounds && r == 0; k++) {
            r = ptx_scale_child(&scale, "1", argv);
            if (r == 0) r = ptx_scale_child(&scale, cores, argv);
        }
        if (r == 0 && !checks) ptx_scale_print(&scale, atoi(cores), rounds, quick);
        return r;
    }
    run_all(quick, checks, only, pairs);
    return 0;
}
