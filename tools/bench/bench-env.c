/* The benchmark's setup: cushim first, then the direct entry points from the same library,
 * then the objects both sides of each comparison use. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static void say(char *err, size_t n, const char *fmt, ...) CUSHIM__PRINTF(3, 4);

static void say(char *err, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

const char *bench_error_name(CUresult r) { return cushim_error_name(r); }

void bench_params_init(bench_params *p) {
    p->a = 0;
    p->b = 7;
    p->ptrs[0] = &p->a;
    p->ptrs[1] = &p->b;
}

char *bench_read_file(const char *path, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        say(err, err_size, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (len < cap - 1) break;
        char *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (buf == NULL || bad) {
        free(buf);
        say(err, err_size, "cannot read '%s'", path);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

/* ------------------------------------------------------------------------------------------ */
/* The direct entry points                                                                    */
/* ------------------------------------------------------------------------------------------ */

static int resolve_one(PFN_cuGetProcAddress_v12000 gpa, const char *name, int version, void **slot,
                       char *err, size_t n) {
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = gpa(name, slot, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);
    if (r != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || *slot == NULL) {
        say(err, n, "cuGetProcAddress_v2(\"%s\", version %d) failed: %s, query result %d", name,
            version, bench_error_name(r), (int)found);
        *slot = NULL;
        return BENCH_RC_FAILED;
    }
    return BENCH_RC_OK;
}

/* The versions are those of the PFN_ typedefs named in bench_driver: cudaTypedefs.h gives
 * each ABI of an entry the version in which it appeared. */
static int resolve_driver(bench_driver *d, char *err, size_t n) {
    const char *env = getenv("CUSHIM_DRIVER");
    d->path = (env != NULL && env[0] != '\0') ? env : "libcuda.so.1";
    d->handle = dlopen(d->path, RTLD_NOW | RTLD_LOCAL);
    if (d->handle == NULL) {
        /* cushim found a driver elsewhere (its search goes on past libcuda.so.1): take that. */
        const char *loaded = cushim_driver_state()->path;
        if (loaded != NULL) {
            d->path = loaded;
            d->handle = dlopen(d->path, RTLD_NOW | RTLD_LOCAL);
        }
    }
    if (d->handle == NULL) {
        say(err, n, "dlopen(\"%s\") failed: %s", d->path, dlerror());
        return BENCH_RC_FAILED;
    }
    PFN_cuGetProcAddress_v12000 gpa;
    *(void **)&gpa = dlsym(d->handle, "cuGetProcAddress_v2");
    if (gpa == NULL) {
        say(err, n, "%s has no cuGetProcAddress_v2 (a driver older than CUDA 12.0)", d->path);
        return BENCH_RC_FAILED;
    }
    const struct {
        const char *name;
        int version;
        void **slot;
    } entries[] = {
        {"cuLaunchKernel", 4000, (void **)&d->launch_kernel},
        {"cuLaunchCooperativeKernel", 9000, (void **)&d->launch_cooperative_kernel},
        {"cuLaunchKernelEx", 11060, (void **)&d->launch_kernel_ex},
        {"cuEventRecord", 2000, (void **)&d->event_record},
        {"cuStreamQuery", 2000, (void **)&d->stream_query},
        {"cuStreamSynchronize", 2000, (void **)&d->stream_synchronize},
        {"cuStreamCreate", 2000, (void **)&d->stream_create},
        {"cuStreamDestroy", 4000, (void **)&d->stream_destroy},
        {"cuEventCreate", 2000, (void **)&d->event_create},
        {"cuEventDestroy", 4000, (void **)&d->event_destroy},
        {"cuCtxGetCurrent", 4000, (void **)&d->ctx_get_current},
        {"cuCtxSetCurrent", 4000, (void **)&d->ctx_set_current},
        {"cuGraphLaunch", 10000, (void **)&d->graph_launch},
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        int rc = resolve_one(gpa, entries[i].name, entries[i].version, entries[i].slot, err, n);
        if (rc != BENCH_RC_OK) return rc;
    }
    return BENCH_RC_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* The objects                                                                                */
/* ------------------------------------------------------------------------------------------ */

/* A failed cushim call: its code and cushim's sentence. */
static int failed(char *err, size_t n, const char *what, CUresult r) {
    say(err, n, "%s failed with %s: %s", what, bench_error_name(r), cushim_last_error());
    return BENCH_RC_FAILED;
}

static int open_device(bench_env *e, int ordinal, char *err, size_t n) {
    const cushim_driver_table *t = cushim_driver();
    int count = 0;
    CUresult r = t->cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS) return failed(err, n, "cuDeviceGetCount", r);
    if (ordinal < 0 || ordinal >= count) {
        say(err, n, "there is no device %d: the driver reports %d device%s", ordinal, count,
            count == 1 ? "" : "s");
        return BENCH_RC_NO_DRIVER;
    }
    r = cushim_context_primary(&e->ctx, ordinal);
    if (r != CUDA_SUCCESS) return failed(err, n, "cushim_context_primary", r);
    e->raw_ctx = cushim_context_raw(e->ctx);
    if (t->cuDeviceGetName(e->device_name, (int)sizeof e->device_name,
                           cushim_context_device(e->ctx)) != CUDA_SUCCESS) {
        snprintf(e->device_name, sizeof e->device_name, "device %d", ordinal);
    }
    /* The direct calls run in the current context: make it the primary one, as the runtime
     * would. cushim's own calls find it current too, so they need no switch. */
    r = e->d.ctx_set_current(e->raw_ctx);
    if (r != CUDA_SUCCESS) return failed(err, n, "cuCtxSetCurrent", r);
    r = cushim_context_create(&e->other, ordinal, 0);
    if (r != CUDA_SUCCESS) return failed(err, n, "cushim_context_create", r);
    e->raw_other = cushim_context_raw(e->other);
    /* The other-context row measures the switch around a driver create, as before recycling. */
    r = cushim_context_set_recycling(e->other, false, false);
    if (r != CUDA_SUCCESS) return failed(err, n, "cushim_context_set_recycling", r);
    r = cushim_context_primary(&e->unrecycled, ordinal);
    if (r == CUDA_SUCCESS) r = cushim_context_set_recycling(e->unrecycled, false, false);
    if (r != CUDA_SUCCESS) return failed(err, n, "cushim_context_primary (recycling off)", r);
    return BENCH_RC_OK;
}

/* Whether cushim_empty launches in clusters of 2 here; the reason in cluster_note when not. */
static int open_cluster(bench_env *e, char *err, size_t n) {
    const cushim_launch_config cfg = {.grid = CUSHIM_DIM3(2), .block = CUSHIM_DIM3(32)};
    int max = 0;
    CUresult r = cushim_occupancy_max_potential_cluster_size(&max, e->empty, &cfg);
    if (r == CUDA_ERROR_NOT_SUPPORTED) {
        snprintf(e->cluster_note, sizeof e->cluster_note, "%s", cushim_last_error());
    } else if (r != CUDA_SUCCESS) {
        return failed(err, n, "cushim_occupancy_max_potential_cluster_size", r);
    } else if (max < 2) {
        snprintf(e->cluster_note, sizeof e->cluster_note,
                 "cushim_empty launches in clusters of at most %d block", max);
    } else {
        e->clusters = true;
    }
    return BENCH_RC_OK;
}

static int open_objects(bench_env *e, const char *ptx, char *err, size_t n) {
    CUresult r = cushim_stream_create(&e->stream, e->ctx, CU_STREAM_NON_BLOCKING, 0);
    if (r != CUDA_SUCCESS) return failed(err, n, "cushim_stream_create", r);
    r = cushim_stream_create(&e->idle, e->ctx, CU_STREAM_NON_BLOCKING, 0);
    if (r != CUDA_SUCCESS) return failed(err, n, "cushim_stream_create", r);
    r = cushim_event_create(&e->event, e->ctx, CU_EVENT_DISABLE_TIMING);
    if (r != CUDA_SUCCESS) return failed(err, n, "cushim_event_create", r);
    r = cushim_module_load_data(&e->module, e->ctx, ptx);
    if (r != CUDA_SUCCESS) return failed(err, n, "cushim_module_load_data (empty.ptx)", r);
    r = cushim_module_function(&e->empty, e->module, "cushim_empty");
    if (r != CUDA_SUCCESS) return failed(err, n, "cushim_module_function(cushim_empty)", r);
    r = cushim_module_function(&e->empty2, e->module, "cushim_empty2");
    if (r != CUDA_SUCCESS) return failed(err, n, "cushim_module_function(cushim_empty2)", r);
    e->raw_stream = cushim_stream_raw(e->stream);
    e->raw_idle = cushim_stream_raw(e->idle);
    e->raw_event = cushim_event_raw(e->event);
    e->raw_empty = cushim_function_raw(e->empty);
    e->raw_empty2 = cushim_function_raw(e->empty2);

    r = cushim_occupancy_max_cooperative_grid(&e->coop_grid, e->empty, 32, 0);
    if (r == CUDA_ERROR_NOT_SUPPORTED) {
        e->coop_grid = 0;
        snprintf(e->coop_note, sizeof e->coop_note, "%s", cushim_last_error());
    } else if (r != CUDA_SUCCESS) {
        return failed(err, n, "cushim_occupancy_max_cooperative_grid", r);
    } else if (e->coop_grid <= 0) {
        e->coop_grid = 0;
        snprintf(e->coop_note, sizeof e->coop_note,
                 "no block of cushim_empty fits for a cooperative launch");
    }
    return open_cluster(e, err, n);
}

/* The graph both sides of the graph rows launch: captured through cushim on the launch stream.
 * A driver that cannot capture leaves the rows skipped, with its reason. */
static int open_graph(bench_env *e, char *err, size_t n) {
    CUresult r = cushim_stream_begin_capture(e->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    if (r != CUDA_SUCCESS) {
        snprintf(e->graph_note, sizeof e->graph_note, "%s", cushim_last_error());
        return BENCH_RC_OK;
    }
    const cushim_launch_config cfg = {
        .grid = CUSHIM_DIM3(1), .block = CUSHIM_DIM3(32), .stream = e->stream};
    for (int i = 0; i < BENCH_GRAPH_KERNELS && r == CUDA_SUCCESS; i++) {
        r = cushim_launch(e->empty, &cfg, NULL);
    }
    cushim_graph *g = NULL;
    CUresult end = cushim_stream_end_capture(&g, e->stream);
    if (r != CUDA_SUCCESS) {
        cushim_graph_release(g);
        return failed(err, n, "cushim_launch (into the graph)", r);
    }
    if (end != CUDA_SUCCESS) return failed(err, n, "cushim_stream_end_capture", end);
    r = cushim_graph_instantiate(&e->graph, g, 0);
    cushim_graph_release(g);
    if (r != CUDA_SUCCESS) return failed(err, n, "cushim_graph_instantiate", r);
    r = cushim_graph_exec_upload(e->graph, e->stream);
    if (r == CUDA_SUCCESS) r = cushim_stream_synchronize(e->stream);
    if (r != CUDA_SUCCESS) return failed(err, n, "cushim_graph_exec_upload", r);
    e->raw_graph = cushim_graph_exec_raw(e->graph);
    return BENCH_RC_OK;
}

int bench_env_open(bench_env *e, int ordinal, const char *ptx, char *err, size_t err_size) {
    memset(e, 0, sizeof *e);
    e->ordinal = ordinal;
    /* cushim_init() calls libcuda's cuInit; the direct pointers come afterwards, from the same
     * library, so that cuInit runs once, as in a program that uses both. */
    CUresult r = cushim_init();
    const cushim_driver_info *info = cushim_driver_state();
    if (r != CUDA_SUCCESS) {
        say(err, err_size, "no usable CUDA driver (%s): %s", bench_error_name(r), info->message);
        return BENCH_RC_NO_DRIVER;
    }
    e->driver_version = info->driver_version;
    int rc = resolve_driver(&e->d, err, err_size);
    if (rc == BENCH_RC_OK) rc = open_device(e, ordinal, err, err_size);
    if (rc == BENCH_RC_OK) rc = open_objects(e, ptx, err, err_size);
    if (rc == BENCH_RC_OK) rc = open_graph(e, err, err_size);
    if (rc != BENCH_RC_OK) bench_env_close(e);
    return rc;
}

void bench_env_close(bench_env *e) {
    if (e->stream != NULL) cushim_stream_synchronize(e->stream);
    cushim_graph_exec_release(e->graph);
    e->graph = NULL;
    cushim_module_release(e->module);
    cushim_event_release(e->event);
    cushim_stream_release(e->idle);
    cushim_stream_release(e->stream);
    cushim_context_release(e->other);
    cushim_context_release(e->unrecycled);
    if (e->ctx != NULL && e->d.ctx_set_current != NULL) e->d.ctx_set_current(NULL);
    cushim_context_release(e->ctx);
    e->module = NULL;
    e->event = NULL;
    e->idle = e->stream = NULL;
    e->other = e->ctx = e->unrecycled = NULL;
}
