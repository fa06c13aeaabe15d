/* cudart-bench: cushim's CUDA runtime against NVIDIA's, in one process. Both libcudart.so.13 are
 * opened by their full paths with RTLD_LOCAL (two libraries of one SONAME load side by side that
 * way; dlmopen into a namespace of its own is the fallback when the loader hands back one
 * handle), each entry is resolved from each with dlsym, the same fatbin is registered with each
 * through nvcc's registration ABI, and batches of calls alternate between the two.
 *
 * Usage and exit codes: see usage_text below, or README.md beside this file.
 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fatbinary_section.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-args.h"
#include "cudart-bench-ops.h"

extern const unsigned long long cudart_bench_fatbin[];

static const char usage_text[] =
    "Usage: cudart-bench [--quick] [--pairs N] [--ops N] [--warmup N] [--cushim-only]\n"
    "                    [--nvidia PATH] [--cushim PATH] [--device N]\n"
    "       cudart-bench --help\n"
    "\n"
    "Compares cushim's CUDA runtime with NVIDIA's in one process: both libcudart.so.13 are\n"
    "opened by path (RTLD_LOCAL), the same fatbin (an empty kernel, SASS sm_90 and PTX\n"
    "compute_90) is registered with each, and batches of each operation alternate between the\n"
    "two (which side goes first alternates too). A figure is the median over batches of the\n"
    "nanoseconds per call; the ratio is the median of the per-pair ratios cushim / NVIDIA, +ns\n"
    "the median of the per-pair differences. Each row has its target (issue 26): <= 1.03 for\n"
    "the calls, < 1 for the create + destroy pairs.\n"
    "\n"
    "Options:\n"
    "  --quick        3 pairs of 100 calls, 1 warm-up pair (for the mock and CI)\n"
    "  --pairs N      timed batch pairs (default 15)\n"
    "  --ops N        calls per batch (default 1000)\n"
    "  --warmup N     untimed batch pairs first (default 2)\n"
    "  --cushim-only  measure cushim's runtime alone (NVIDIA's is not loaded): on the mock\n"
    "  --nvidia PATH  NVIDIA's libcudart.so.13 (default: the toolkit's, found at build time)\n"
    "  --cushim PATH  cushim's libcudart.so.13 (default: the build's runtime/cudart/)\n"
    "  --device N     the device ordinal (default 0)\n"
    "  -h, --help     print this help and exit\n"
    "\n"
    "Exit codes:\n"
    "  0   every row was measured (whether each met its target is in the table)\n"
    "  1   a runtime call failed during the setup or a measurement\n"
    "  2   bad usage\n"
    "  77  a runtime cannot be loaded or finds no device (NVIDIA's finds none without a GPU):\n"
    "      nothing was measured, the reason is on stderr\n";

/* ------------------------------------------------------------------------------------------ */
/* The two runtimes                                                                           */
/* ------------------------------------------------------------------------------------------ */

/* The entries, by name, and where each goes in an rt_side. */
#define ENTRY(field, name)                                                                         \
    { offsetof(rt_side, field), name }
static const struct {
    size_t offset;
    const char *name;
} entries[] = {
    ENTRY(get_device_count, "cudaGetDeviceCount"),
    ENTRY(set_device, "cudaSetDevice"),
    ENTRY(free_, "cudaFree"),
    ENTRY(malloc_, "cudaMalloc"),
    ENTRY(malloc_host, "cudaMallocHost"),
    ENTRY(free_host, "cudaFreeHost"),
    ENTRY(stream_create_with_flags, "cudaStreamCreateWithFlags"),
    ENTRY(stream_create, "cudaStreamCreate"),
    ENTRY(stream_destroy, "cudaStreamDestroy"),
    ENTRY(stream_query, "cudaStreamQuery"),
    ENTRY(stream_synchronize, "cudaStreamSynchronize"),
    ENTRY(event_create, "cudaEventCreate"),
    ENTRY(event_create_with_flags, "cudaEventCreateWithFlags"),
    ENTRY(event_destroy, "cudaEventDestroy"),
    ENTRY(event_record, "cudaEventRecord"),
    ENTRY(memcpy_async, "cudaMemcpyAsync"),
    ENTRY(launch_kernel, "cudaLaunchKernel"),
    ENTRY(get_error_name, "cudaGetErrorName"),
    ENTRY(get_error_string, "cudaGetErrorString"),
    ENTRY(register_fatbin, "__cudaRegisterFatBinary"),
    ENTRY(register_fatbin_end, "__cudaRegisterFatBinaryEnd"),
    ENTRY(unregister_fatbin, "__cudaUnregisterFatBinary"),
    ENTRY(register_function, "__cudaRegisterFunction"),
    ENTRY(push_config, "__cudaPushCallConfiguration"),
    ENTRY(pop_config, "__cudaPopCallConfiguration"),
    ENTRY(get_kernel, "__cudaGetKernel"),
    ENTRY(launch_handle, "__cudaLaunchKernel"),
};

static const char kernel_name[] = "cudart_bench_empty";

static int failed(rt_side *s, const char *call, cudaError_t e) {
    s->error = e;
    s->failed_call = call;
    return BENCH_RT_FAILED;
}

/* Opens the library, by path, beside the other (NULL, or its handle). */
static int open_side(rt_side *s, const char *who, const char *path, void *other, char *err,
                     size_t cap) {
    memset(s, 0, sizeof *s);
    s->who = who;
    s->path = path;
    if (path == NULL || path[0] == '\0') {
        snprintf(err, cap, "no path to %s libcudart.so.13: give it with --%s", who, who);
        return BENCH_RT_NO_DEVICE;
    }
    s->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    s->how = "dlopen(RTLD_LOCAL)";
    if (s->h != NULL && s->h == other) {
        /* The loader took it for the library it has: a namespace of its own then. */
        s->h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
        s->how = "dlmopen(LM_ID_NEWLM)";
    }
    if (s->h == NULL) {
        snprintf(err, cap, "%s runtime cannot be loaded: %s", who, dlerror());
        return BENCH_RT_NO_DEVICE;
    }
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        void *f = dlsym(s->h, entries[i].name);
        if (f == NULL) {
            snprintf(err, cap, "%s (%s) has no %s", path, who, entries[i].name);
            return BENCH_RT_NO_DEVICE;
        }
        memcpy((char *)s + entries[i].offset, &f, sizeof f);
    }
    return BENCH_RT_OK;
}

/* The device, the fatbin registered, and the objects the rows use. */
static int setup_side(rt_side *s, int device, char *err, size_t cap) {
    int n = 0;
    cudaError_t e = s->get_device_count(&n);
    if (e != cudaSuccess || device >= n) {
        snprintf(err, cap, "%s runtime finds no device %d (%s: %s)", s->who, device,
                 e != cudaSuccess ? s->get_error_name(e) : "count",
                 e != cudaSuccess ? s->get_error_string(e) : "fewer devices");
        return BENCH_RT_NO_DEVICE;
    }
    if ((e = s->set_device(device)) != cudaSuccess) return failed(s, "cudaSetDevice", e);
    if ((e = s->free_(NULL)) != cudaSuccess) return failed(s, "cudaFree(NULL)", e);
    s->wrapper.magic = FATBINC_MAGIC;
    s->wrapper.version = FATBINC_VERSION;
    s->wrapper.data = cudart_bench_fatbin;
    s->fatbin = s->register_fatbin(&s->wrapper);
    s->register_function(s->fatbin, &cudart_bench_kernel_host, (char *)kernel_name, kernel_name, -1,
                         NULL, NULL, NULL, NULL, NULL);
    s->register_fatbin_end(s->fatbin);
    if ((e = s->get_kernel(&s->kernel, &cudart_bench_kernel_host)) != cudaSuccess)
        return failed(s, "__cudaGetKernel", e);
    if ((e = s->stream_create_with_flags(&s->stream, cudaStreamNonBlocking)) != cudaSuccess ||
        (e = s->stream_create_with_flags(&s->idle, cudaStreamNonBlocking)) != cudaSuccess)
        return failed(s, "cudaStreamCreateWithFlags", e);
    if ((e = s->event_create_with_flags(&s->event, cudaEventDisableTiming)) != cudaSuccess)
        return failed(s, "cudaEventCreateWithFlags", e);
    if ((e = s->malloc_(&s->dev, 4)) != cudaSuccess) return failed(s, "cudaMalloc", e);
    if ((e = s->malloc_host(&s->host, 4)) != cudaSuccess) return failed(s, "cudaMallocHost", e);
    /* One launch through each path, so that the module is loaded before any batch. */
    if ((e = bench_rt_chevron(s, 1)) != cudaSuccess) return failed(s, "the first launch", e);
    if ((e = s->stream_synchronize(s->stream)) != cudaSuccess)
        return failed(s, "cudaStreamSynchronize", e);
    return BENCH_RT_OK;
}

static void close_side(rt_side *s) {
    if (s->h == NULL || s->fatbin == NULL) return;
    if (s->host != NULL) s->free_host(s->host);
    if (s->dev != NULL) s->free_(s->dev);
    if (s->event != NULL) s->event_destroy(s->event);
    if (s->idle != NULL) s->stream_destroy(s->idle);
    if (s->stream != NULL) s->stream_destroy(s->stream);
    s->unregister_fatbin(s->fatbin);
    s->fatbin = NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Measurement                                                                                */
/* ------------------------------------------------------------------------------------------ */

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* One batch: only the n calls are timed; queued work is waited for after. */
static int batch(rt_side *s, const bench_rt_op *op, int n, double *ns) {
    double t0 = now_ns();
    cudaError_t e = op->run(s, n);
    double t1 = now_ns();
    if (e != cudaSuccess) return failed(s, op->id, e);
    if (op->settle && (e = s->stream_synchronize(s->stream)) != cudaSuccess)
        return failed(s, "cudaStreamSynchronize", e);
    *ns = (t1 - t0) / n;
    return BENCH_RT_OK;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct settings {
    int pairs, ops, warmup, device;
    bool cushim_only;
    const char *nvidia, *cushim;
} settings;

typedef struct row {
    double nvidia, cushim, ratio, delta;
} row;

/* Pairs of batches, NVIDIA's side first in even pairs and cushim's in odd ones (sides[0] is
 * NVIDIA's, NULL with --cushim-only). */
static int measure(rt_side *sides[2], const bench_rt_op *op, const settings *st, row *out) {
    double *v = calloc(4 * (size_t)st->pairs, sizeof *v);
    if (v == NULL) return BENCH_RT_FAILED;
    double *nv = v, *cu = v + st->pairs, *ratio = v + 2 * st->pairs, *delta = v + 3 * st->pairs;
    int rc = BENCH_RT_OK;
    for (int i = -st->warmup; i < st->pairs && rc == BENCH_RT_OK; i++) {
        double t[2] = {0, 0};
        for (int k = 0; k < 2 && rc == BENCH_RT_OK; k++) {
            int who = (i & 1) ? 1 - k : k;
            if (sides[who] != NULL) rc = batch(sides[who], op, st->ops, &t[who]);
        }
        if (i < 0) continue;
        nv[i] = t[0];
        cu[i] = t[1];
        ratio[i] = t[0] > 0 ? t[1] / t[0] : 0;
        delta[i] = t[1] - t[0];
    }
    if (rc == BENCH_RT_OK) {
        *out = (row){median(nv, st->pairs), median(cu, st->pairs), median(ratio, st->pairs),
                     median(delta, st->pairs)};
    }
    free(v);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Command line and table                                                                     */
/* ------------------------------------------------------------------------------------------ */

static int usage_error(const char *what, const char *arg) {
    fprintf(stderr, "cudart-bench: %s '%s'\n\n%s", what, arg, usage_text);
    return BENCH_RT_USAGE;
}

/* -1 to go on, or an exit code. */
static int parse_args(int argc, char **argv, settings *st) {
    *st = (settings){15, 1000, 2, 0, false, CUDART_BENCH_NVIDIA, CUDART_BENCH_CUSHIM};
    bool quick = false, pairs_set = false, ops_set = false, warmup_set = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        int *num = NULL, min = 1;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return BENCH_RT_OK;
        } else if (strcmp(a, "--quick") == 0) {
            quick = true;
        } else if (strcmp(a, "--cushim-only") == 0) {
            st->cushim_only = true;
        } else if (strcmp(a, "--nvidia") == 0 || strcmp(a, "--cushim") == 0) {
            if (next == NULL) return usage_error("a path is needed after", a);
            *(a[2] == 'n' ? &st->nvidia : &st->cushim) = next;
            i++;
        } else if (strcmp(a, "--pairs") == 0) {
            num = &st->pairs, pairs_set = true;
        } else if (strcmp(a, "--ops") == 0) {
            num = &st->ops, ops_set = true;
        } else if (strcmp(a, "--warmup") == 0) {
            num = &st->warmup, min = 0, warmup_set = true;
        } else if (strcmp(a, "--device") == 0) {
            num = &st->device, min = 0;
        } else {
            return usage_error("unknown option", a);
        }
        if (num != NULL) {
            if (!bench_parse_int(next, min, num)) return usage_error("a number is needed after", a);
            i++;
        }
    }
    if (quick) {
        if (!pairs_set) st->pairs = 3;
        if (!ops_set) st->ops = 100;
        if (!warmup_set) st->warmup = 1;
    }
    return -1;
}

static void print_row(const bench_rt_op *op, const row *r, bool cushim_only) {
    if (cushim_only) {
        printf("%-28s %11s %11.1f\n", op->label, "-", r->cushim);
        return;
    }
    bool met = op->target_below ? r->ratio < op->target : r->ratio <= op->target;
    printf("%-28s %11.1f %11.1f %8.3f %+9.1f   %s %.2f  %s\n", op->label, r->nvidia, r->cushim,
           r->ratio, r->delta, op->target_below ? "< " : "<=", op->target, met ? "met" : "MISSED");
}

static int run(const settings *st) {
    char err[512] = "";
    rt_side nvidia, cushim;
    rt_side *sides[2] = {NULL, &cushim};
    memset(&nvidia, 0, sizeof nvidia);
    memset(&cushim, 0, sizeof cushim); /* closed below even when nvidia's side never opened */
    int rc = BENCH_RT_OK;
    if (!st->cushim_only) {
        rc = open_side(&nvidia, "nvidia", st->nvidia, NULL, err, sizeof err);
        sides[0] = &nvidia;
    }
    if (rc == BENCH_RT_OK) rc = open_side(&cushim, "cushim", st->cushim, nvidia.h, err, sizeof err);
    for (int k = 0; k < 2 && rc == BENCH_RT_OK; k++) {
        if (sides[k] != NULL) rc = setup_side(sides[k], st->device, err, sizeof err);
    }
    if (rc == BENCH_RT_OK) {
        printf("cudart-bench: device %d, cushim %s\n", st->device, cushim.path);
        if (!st->cushim_only) {
            printf("              against NVIDIA %s, both by %s\n", nvidia.path, cushim.how);
        }
        printf("%d batch pairs of %d calls after %d warm-up pair%s; medians over batches\n\n",
               st->pairs, st->ops, st->warmup, st->warmup == 1 ? "" : "s");
        if (st->cushim_only) {
            printf("%-28s %11s %11s\n", "operation", "nvidia ns", "cushim ns");
        } else {
            printf("%-28s %11s %11s %8s %9s   %s\n", "operation", "nvidia ns", "cushim ns", "ratio",
                   "+ns", "target");
        }
    }
    int met = 0, rows = 0;
    for (size_t i = 0; i < bench_rt_op_count && rc == BENCH_RT_OK; i++) {
        row r;
        rc = measure(sides, &bench_rt_ops[i], st, &r);
        if (rc != BENCH_RT_OK) break;
        print_row(&bench_rt_ops[i], &r, st->cushim_only);
        rows++;
        met += bench_rt_ops[i].target_below ? r.ratio < bench_rt_ops[i].target
                                            : r.ratio <= bench_rt_ops[i].target;
    }
    if (rc == BENCH_RT_OK && !st->cushim_only) printf("\ntargets met: %d of %d\n", met, rows);
    if (rc == BENCH_RT_NO_DEVICE) {
        fprintf(stderr, "cudart-bench: %s\ncudart-bench: nothing measured (exit 77)%s\n", err,
                st->cushim_only ? "" : "; on the mock, run cushim's side alone: --cushim-only");
    }
    for (int k = 0; k < 2 && rc == BENCH_RT_FAILED; k++) {
        rt_side *s = sides[k];
        if (s != NULL && s->failed_call != NULL) {
            fprintf(stderr, "cudart-bench: %s runtime: %s failed with %s (%s)\n", s->who,
                    s->failed_call, s->get_error_name(s->error), s->get_error_string(s->error));
        }
    }
    close_side(&cushim);
    close_side(&nvidia);
    return rc;
}

int main(int argc, char **argv) {
    settings st;
    int rc = parse_args(argc, argv, &st);
    if (rc >= 0) return rc;
    return run(&st);
}
