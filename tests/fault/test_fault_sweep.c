/* The fault sweep: every public function that calls the driver, run once on the mock to record
 * the driver calls and host allocations it makes, then again with each of those failing in
 * turn. After each faulted run:
 *   - the function returned the injected code (or, for a void release, logged the refusal);
 *   - an out-pointer is NULL, and cushim_last_error() says something;
 *   - the thread's current context is what it was (or, when the fault hit the switch back, the
 *     context cushim had switched to, which is all a refused cuCtxSetCurrent leaves possible);
 *   - once everything is released, the mock's live objects are back to none (but for the one
 *     object whose destroy the fault refused), and ASan / valgrind find no leak.
 * cushim_init and the functions that only initialise are swept in forked children, since a
 * process initialises once. The last test checks that every CUSHIM_API function of cushim.h
 * is either swept or listed as one that never calls the driver, and prints the count.
 *
 * Host allocations are failed through the linker: this program links libcushim.a with
 * --wrap=malloc/calloc/realloc, so cushim's allocations (and only those, plus this file's)
 * pass through the wrappers below. */
#include <ctype.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* Two hidden helpers of the library, cushim__block_cache_drain and cushim__clear_error, from its
 * own headers: reachable here because this program links the static archive. */
#include "api/alloc.h"
#include "loader/diag.h"

#ifndef CUSHIM_HEADER
#error "CUSHIM_HEADER: the path of include/cushim.h, from meson"
#endif

/* ------------------------------------------------------------------------------------------ */
/* Allocation faults                                                                          */
/* ------------------------------------------------------------------------------------------ */

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

static struct {
    bool counting;
    int count;   /* allocations seen while counting */
    int fail_at; /* the allocation (1-based) that fails; 0: none */
} alloc;

static bool alloc_fails(void) {
    if (!alloc.counting) return false;
    return ++alloc.count == alloc.fail_at;
}

void *__wrap_malloc(size_t size) { return alloc_fails() ? NULL : __real_malloc(size); }

void *__wrap_calloc(size_t n, size_t size) { return alloc_fails() ? NULL : __real_calloc(n, size); }

void *__wrap_realloc(void *p, size_t size) {
    return alloc_fails() ? NULL : __real_realloc(p, size);
}

/* ------------------------------------------------------------------------------------------ */
/* Scenarios                                                                                  */
/* ------------------------------------------------------------------------------------------ */

static const char ptx[] =
    ".version 6.0\n.target sm_70\n.address_size 64\n\n"
    ".visible .entry cushim_empty(\n)\n{\n    ret;\n}\n\n"
    ".visible .entry cushim_grid_barrier(\n    .param .u64 slots\n)\n{\n    ret;\n}\n";

static char ptx_path[64];

/* What a scenario may need before its call; made with no fault armed, released after. */
enum {
    NEED_CTX = 1 << 0,     /* a created context */
    NEED_STREAM = 1 << 1,  /* a stream in it */
    NEED_EVENTS = 1 << 2,  /* two timing events recorded on that stream, completed */
    NEED_MODULE = 1 << 3,  /* a module of `ptx` */
    NEED_FUNC = 1 << 4,    /* cushim_empty and cushim_grid_barrier of the module */
    NEED_LIBRARY = 1 << 5, /* a library of `ptx` */
    NEED_PRIMARY = 1 << 6, /* device 0's primary context */
    NEED_GRAPH = 1 << 7,   /* a graph captured on the stream: a host function */
    NEED_EXEC = 1 << 8,    /* that graph instantiated */
    NEED_CAPTURE = 1 << 9, /* the stream capturing, a host function queued */
    NEED_CACHED = 1 << 10, /* an event and a stream released into the context's caches */
    NEED_LINKER = 1 << 11, /* a linker in the context, the LTO IR of `programs[2]` added */
};

/* Programs compiled once by NVRTC for the whole sweep (compiling is slow, and makes no driver
 * call): PTX, a cubin for the mock's sm_90, and LTO IR. */
static const char kernel_source[] = "extern \"C\" __global__ void cushim_empty() {}\n";
static cushim_program *programs[3];

typedef struct fx {
    cushim_context *ctx, *primary;
    cushim_stream *s;
    cushim_event *e1, *e2;
    cushim_module *m;
    cushim_library *lib;
    cushim_function *f, *fcoop;
    cushim_graph *g;
    cushim_graph_exec *x;
    cushim_linker *linker;
    /* What the call under test made, and how to drop it. */
    void *out;
    void (*release_out)(void *);
    /* For a release under test: the object is released by the call itself. */
    bool released_by_op;
    /* The context the call switches to (for the restore rule). */
    CUcontext target;
} fx;

typedef struct scenario {
    const char *function; /* the public function under test, as in cushim.h */
    const char *variant;
    unsigned needs;
    bool has_out; /* the function has an out-pointer that a failure must leave NULL */
    bool is_void; /* a release: no result; a refusal is logged */
    /* For a release: the mock kind that a refused destroy leaves alive to the end (-1: none;
     * a stream, event or module the driver kept dies with its context when that goes), and the
     * driver call whose refusal does so. */
    int kept;
    const char *kept_by;
    /* A driver call that fails here is not an error: the call falls back (a release whose
     * cuStreamQuery fails destroys the stream rather than keep it), so no code or warning is
     * asked for; the restored context and the leak checks still are. */
    bool absorbs;
    CUresult (*op)(fx *);
} scenario;

static void release_context(void *p) { cushim_context_release(p); }
static void release_stream(void *p) { cushim_stream_release(p); }
static void release_event(void *p) { cushim_event_release(p); }
static void release_module(void *p) { cushim_module_release(p); }
static void release_library(void *p) { cushim_library_release(p); }
static void release_nothing(void *p) { (void)p; } /* functions belong to their module */
static void release_graph(void *p) { cushim_graph_release(p); }
static void release_exec(void *p) { cushim_graph_exec_release(p); }
static void release_linker(void *p) { cushim_linker_release(p); }
/* A capture the call under test began: ended, and its graph dropped. */
static void end_capture(void *p) {
    cushim_graph *g = NULL;
    cushim_stream_end_capture(&g, p);
    cushim_graph_release(g);
}
static void host_nothing(void *user) { (void)user; }

#define OUT(fx, type, rel) ((fx)->release_out = (rel), (type **)&(fx)->out)

static CUresult op_context_primary(fx *x) {
    return cushim_context_primary(OUT(x, cushim_context, release_context), 0);
}
static CUresult op_context_create(fx *x) {
    return cushim_context_create(OUT(x, cushim_context, release_context), 0, 0);
}
static CUresult op_context_release(fx *x) {
    x->released_by_op = true;
    cushim_context_release(x->ctx);
    return CUDA_SUCCESS;
}
static CUresult op_context_synchronize(fx *x) { return cushim_context_synchronize(x->ctx); }
static CUresult op_device_synchronize(fx *x) {
    (void)x;
    return cushim_device_synchronize();
}
static CUresult op_priority_range(fx *x) {
    int least = 0, greatest = 0;
    return cushim_context_stream_priority_range(&least, &greatest, x->ctx);
}
static CUresult op_stream_create(fx *x) {
    return cushim_stream_create(OUT(x, cushim_stream, release_stream), x->ctx, 0, 0);
}
static CUresult op_stream_create_priority(fx *x) {
    return cushim_stream_create(OUT(x, cushim_stream, release_stream), x->ctx,
                                CU_STREAM_NON_BLOCKING, -1);
}
static CUresult op_stream_release(fx *x) {
    x->released_by_op = true;
    cushim_stream_release(x->s);
    return CUDA_SUCCESS;
}
static CUresult op_stream_release_unkept(fx *x) {
    CUresult r = cushim_context_set_recycling(x->ctx, true, false);
    op_stream_release(x);
    x->s = NULL; /* released: drop() must not again */
    return r;
}
static CUresult op_stream_create_recycled(fx *x) {
    return cushim_stream_create(OUT(x, cushim_stream, release_stream), x->ctx, 0, 0);
}
static CUresult op_context_trim(fx *x) { return cushim_context_trim(x->ctx); }
static CUresult op_set_recycling_off(fx *x) {
    return cushim_context_set_recycling(x->ctx, false, false);
}
static CUresult op_stream_synchronize(fx *x) { return cushim_stream_synchronize(x->s); }
static CUresult op_stream_query(fx *x) { return cushim_stream_query(x->s); }
static CUresult op_stream_wait_event(fx *x) { return cushim_stream_wait_event(x->s, x->e1, 0); }
static CUresult op_stream_wait_event_default(fx *x) {
    return cushim_stream_wait_event(NULL, x->e1, 0);
}
static CUresult op_event_create(fx *x) {
    return cushim_event_create(OUT(x, cushim_event, release_event), x->ctx, 0);
}
static CUresult op_event_release(fx *x) {
    x->released_by_op = true;
    cushim_event_release(x->e1);
    return CUDA_SUCCESS;
}
static CUresult op_event_release_unkept(fx *x) {
    CUresult r = cushim_context_set_recycling(x->ctx, false, true);
    op_event_release(x);
    x->e1 = NULL; /* released: drop() must not again */
    return r;
}
static CUresult op_event_record(fx *x) { return cushim_event_record(x->e1, x->s); }
static CUresult op_event_record_default(fx *x) { return cushim_event_record(x->e1, NULL); }
static CUresult op_event_synchronize(fx *x) { return cushim_event_synchronize(x->e1); }
static CUresult op_event_query(fx *x) { return cushim_event_query(x->e1); }
static CUresult op_event_elapsed(fx *x) {
    float ms = 0;
    return cushim_event_elapsed_ms(&ms, x->e1, x->e2);
}
static CUresult op_module_load_data(fx *x) {
    return cushim_module_load_data(OUT(x, cushim_module, release_module), x->ctx, ptx);
}
static CUresult op_module_load_file(fx *x) {
    return cushim_module_load_file(OUT(x, cushim_module, release_module), x->ctx, ptx_path);
}
static CUresult op_module_release(fx *x) {
    x->released_by_op = true;
    cushim_module_release(x->m);
    return CUDA_SUCCESS;
}
static CUresult op_module_function(fx *x) {
    return cushim_module_function(OUT(x, cushim_function, release_nothing), x->m,
                                  "cushim_grid_barrier");
}
static CUresult op_library_load(fx *x) {
    return cushim_library_load_data(OUT(x, cushim_library, release_library), ptx);
}
static CUresult op_library_release(fx *x) {
    x->released_by_op = true;
    cushim_library_release(x->lib);
    return CUDA_SUCCESS;
}
static CUresult op_library_function(fx *x) {
    return cushim_library_function(OUT(x, cushim_function, release_nothing), x->lib, x->ctx,
                                   "cushim_empty");
}
static CUresult op_launch(fx *x) {
    cushim_launch_config c = {
        .grid = CUSHIM_DIM3(4), .block = CUSHIM_DIM3(64), .shared_mem_bytes = 0, .stream = x->s};
    return cushim_launch(x->f, &c, NULL);
}
static CUresult op_launch_default(fx *x) {
    cushim_launch_config c = {
        .grid = CUSHIM_DIM3(4), .block = CUSHIM_DIM3(64), .shared_mem_bytes = 0, .stream = NULL};
    return cushim_launch(x->f, &c, NULL);
}
static CUresult op_launch_cooperative(fx *x) {
    unsigned long long slots = 0;
    void *params[] = {&slots};
    cushim_launch_config c = {
        .grid = CUSHIM_DIM3(2), .block = CUSHIM_DIM3(128), .shared_mem_bytes = 0, .stream = x->s};
    return cushim_launch_cooperative(x->fcoop, &c, params);
}
/* Every launch attribute at once: the cluster size query, the priority range (read once per
 * device, so swept only where a run reads it first) and cuLaunchKernelEx. */
static cushim_launch_config attributed(cushim_stream *s) {
    cushim_launch_config c = {.grid = CUSHIM_DIM3(4, 2),
                              .block = CUSHIM_DIM3(64),
                              .stream = s,
                              .cluster = CUSHIM_DIM3(2, 2),
                              .priority = -1,
                              .has_priority = true,
                              .programmatic_serialization = true};
    return c;
}
static CUresult op_launch_attributes(fx *x) {
    cushim_launch_config c = attributed(x->s);
    return cushim_launch(x->f, &c, NULL);
}
static CUresult op_launch_attributes_default(fx *x) {
    cushim_launch_config c = attributed(NULL);
    return cushim_launch(x->f, &c, NULL);
}
static CUresult op_launch_cooperative_attribute(fx *x) {
    unsigned long long slots = 0;
    void *params[] = {&slots};
    cushim_launch_config c = {
        .grid = CUSHIM_DIM3(2), .block = CUSHIM_DIM3(128), .stream = x->s, .cooperative = true};
    return cushim_launch(x->fcoop, &c, params);
}
static CUresult op_launch_cooperative_cluster(fx *x) {
    unsigned long long slots = 0;
    void *params[] = {&slots};
    cushim_launch_config c = {.grid = CUSHIM_DIM3(4),
                              .block = CUSHIM_DIM3(128),
                              .stream = x->s,
                              .cluster = CUSHIM_DIM3(2)};
    return cushim_launch_cooperative(x->fcoop, &c, params);
}
static CUresult op_occupancy_active_clusters(fx *x) {
    int clusters = 0;
    cushim_launch_config c = {
        .grid = CUSHIM_DIM3(8), .block = CUSHIM_DIM3(128), .cluster = CUSHIM_DIM3(4)};
    return cushim_occupancy_max_active_clusters(&clusters, x->f, &c);
}
static CUresult op_occupancy_cluster_size(fx *x) {
    int size = 0;
    cushim_launch_config c = {.grid = CUSHIM_DIM3(8), .block = CUSHIM_DIM3(128)};
    return cushim_occupancy_max_potential_cluster_size(&size, x->f, &c);
}
static CUresult op_occupancy_blocks(fx *x) {
    int blocks = 0;
    return cushim_occupancy_max_active_blocks(&blocks, x->f, 256, 0);
}
static CUresult op_occupancy_block_size(fx *x) {
    int grid = 0, block = 0;
    return cushim_occupancy_max_potential_block_size(&grid, &block, x->f, 0, 0);
}
static size_t smem_per_block(int block_size) { return (size_t)block_size * 4u; }
static CUresult op_occupancy_block_size_fn(fx *x) {
    int grid = 0, block = 0;
    return cushim_occupancy_max_potential_block_size_fn(&grid, &block, x->f, smem_per_block, 0);
}
static CUresult op_occupancy_coop_grid(fx *x) {
    int blocks = 0;
    return cushim_occupancy_max_cooperative_grid(&blocks, x->fcoop, 128, 0);
}

static CUresult op_begin_capture(fx *x) {
    CUresult r = cushim_stream_begin_capture(x->s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    if (r == CUDA_SUCCESS) {
        x->out = x->s;
        x->release_out = end_capture;
    }
    return r;
}
static CUresult op_end_capture(fx *x) {
    return cushim_stream_end_capture(OUT(x, cushim_graph, release_graph), x->s);
}
static CUresult op_graph_release(fx *x) {
    x->released_by_op = true;
    cushim_graph_release(x->g);
    return CUDA_SUCCESS;
}
static CUresult op_instantiate(fx *x) {
    return cushim_graph_instantiate(OUT(x, cushim_graph_exec, release_exec), x->g, 0);
}
static CUresult op_exec_release(fx *x) {
    x->released_by_op = true;
    cushim_graph_exec_release(x->x);
    return CUDA_SUCCESS;
}
static CUresult op_exec_launch(fx *x) { return cushim_graph_exec_launch(x->x, x->s); }
static CUresult op_exec_launch_default(fx *x) { return cushim_graph_exec_launch(x->x, NULL); }
static CUresult op_exec_upload(fx *x) { return cushim_graph_exec_upload(x->x, x->s); }
static CUresult op_exec_upload_default(fx *x) { return cushim_graph_exec_upload(x->x, NULL); }
static CUresult op_exec_update(fx *x) { return cushim_graph_exec_update(x->x, x->g); }
static CUresult op_host_func(fx *x) {
    return cushim_stream_launch_host_func(x->s, host_nothing, NULL);
}
static CUresult op_stream_wrap(fx *x) {
    return cushim_stream_wrap(OUT(x, cushim_stream, release_stream), x->ctx,
                              cushim_stream_raw(x->s));
}
static CUresult op_event_wrap(fx *x) {
    return cushim_event_wrap(OUT(x, cushim_event, release_event), x->ctx, cushim_event_raw(x->e1));
}
static CUresult op_context_wrap(fx *x) {
    return cushim_context_wrap(OUT(x, cushim_context, release_context), cushim_context_raw(x->ctx));
}
static CUresult op_context_wrap_current(fx *x) {
    return cushim_context_wrap(OUT(x, cushim_context, release_context), NULL);
}
static CUresult op_program_load_ptx(fx *x) {
    return cushim_program_load(OUT(x, cushim_module, release_module), programs[0], x->ctx);
}
static CUresult op_program_load_cubin(fx *x) {
    return cushim_program_load(OUT(x, cushim_module, release_module), programs[1], x->ctx);
}
static CUresult op_linker_create(fx *x) {
    return cushim_linker_create(OUT(x, cushim_linker, release_linker), x->ctx, 0, NULL);
}
static CUresult op_linker_complete(fx *x) {
    return cushim_linker_complete(OUT(x, cushim_module, release_module), x->linker);
}

#define CALL(fn, variant, needs, out, op)                                                          \
    { fn, variant, needs, out, false, -1, NULL, false, op }
#define RELEASE(fn, variant, needs, kind, kept_by, absorbs, op)                                    \
    { fn, variant, needs, false, true, kind, kept_by, absorbs, op }
static const scenario scenarios[] = {
    CALL("cushim_context_primary", "", 0, true, op_context_primary),
    CALL("cushim_context_create", "", 0, true, op_context_create),
    RELEASE("cushim_context_release", "", NEED_CTX, CUSHIM_MOCK_CONTEXT, "cuCtxDestroy", false,
            op_context_release),
    RELEASE("cushim_context_release", "with cached objects", NEED_CTX | NEED_CACHED,
            CUSHIM_MOCK_CONTEXT, "cuCtxDestroy", false, op_context_release),
    CALL("cushim_context_trim", "", NEED_CTX | NEED_CACHED, false, op_context_trim),
    CALL("cushim_context_set_recycling", "off", NEED_CTX | NEED_CACHED, false,
         op_set_recycling_off),
    CALL("cushim_context_synchronize", "", NEED_CTX, false, op_context_synchronize),
    CALL("cushim_device_synchronize", "", NEED_CTX, false, op_device_synchronize),
    CALL("cushim_context_stream_priority_range", "", NEED_CTX, false, op_priority_range),
    CALL("cushim_stream_create", "", NEED_CTX, true, op_stream_create),
    CALL("cushim_stream_create", "priority -1", NEED_CTX, true, op_stream_create_priority),
    CALL("cushim_stream_create", "recycled", NEED_CTX | NEED_CACHED, true,
         op_stream_create_recycled),
    RELEASE("cushim_stream_release", "kept", NEED_CTX | NEED_STREAM, -1, NULL, true,
            op_stream_release),
    RELEASE("cushim_stream_release", "recycling off", NEED_CTX | NEED_STREAM, -1, NULL, false,
            op_stream_release_unkept),
    CALL("cushim_stream_synchronize", "", NEED_CTX | NEED_STREAM, false, op_stream_synchronize),
    CALL("cushim_stream_query", "", NEED_CTX | NEED_STREAM, false, op_stream_query),
    CALL("cushim_stream_wait_event", "", NEED_CTX | NEED_STREAM | NEED_EVENTS, false,
         op_stream_wait_event),
    CALL("cushim_stream_wait_event", "default stream", NEED_CTX | NEED_STREAM | NEED_EVENTS, false,
         op_stream_wait_event_default),
    CALL("cushim_event_create", "", NEED_CTX, true, op_event_create),
    CALL("cushim_event_create", "recycled", NEED_CTX | NEED_CACHED, true, op_event_create),
    RELEASE("cushim_event_release", "kept", NEED_CTX | NEED_STREAM | NEED_EVENTS, -1, NULL, false,
            op_event_release),
    RELEASE("cushim_event_release", "recycling off", NEED_CTX | NEED_STREAM | NEED_EVENTS, -1, NULL,
            false, op_event_release_unkept),
    CALL("cushim_event_record", "", NEED_CTX | NEED_STREAM | NEED_EVENTS, false, op_event_record),
    CALL("cushim_event_record", "default stream", NEED_CTX | NEED_STREAM | NEED_EVENTS, false,
         op_event_record_default),
    CALL("cushim_event_synchronize", "", NEED_CTX | NEED_STREAM | NEED_EVENTS, false,
         op_event_synchronize),
    CALL("cushim_event_query", "", NEED_CTX | NEED_STREAM | NEED_EVENTS, false, op_event_query),
    CALL("cushim_event_elapsed_ms", "", NEED_CTX | NEED_STREAM | NEED_EVENTS, false,
         op_event_elapsed),
    CALL("cushim_module_load_data", "", NEED_CTX, true, op_module_load_data),
    CALL("cushim_module_load_file", "", NEED_CTX, true, op_module_load_file),
    RELEASE("cushim_module_release", "", NEED_CTX | NEED_MODULE, -1, NULL, false,
            op_module_release),
    CALL("cushim_module_function", "", NEED_CTX | NEED_MODULE, true, op_module_function),
    CALL("cushim_library_load_data", "", 0, true, op_library_load),
    RELEASE("cushim_library_release", "", NEED_LIBRARY, CUSHIM_MOCK_LIBRARY, "cuLibraryUnload",
            false, op_library_release),
    CALL("cushim_library_function", "", NEED_CTX | NEED_LIBRARY, true, op_library_function),
    CALL("cushim_launch", "", NEED_CTX | NEED_STREAM | NEED_MODULE | NEED_FUNC, false, op_launch),
    CALL("cushim_launch", "default stream", NEED_CTX | NEED_STREAM | NEED_MODULE | NEED_FUNC, false,
         op_launch_default),
    CALL("cushim_launch_cooperative", "", NEED_CTX | NEED_STREAM | NEED_MODULE | NEED_FUNC, false,
         op_launch_cooperative),
    CALL("cushim_launch", "attributes", NEED_CTX | NEED_STREAM | NEED_MODULE | NEED_FUNC, false,
         op_launch_attributes),
    CALL("cushim_launch", "attributes, default stream",
         NEED_CTX | NEED_STREAM | NEED_MODULE | NEED_FUNC, false, op_launch_attributes_default),
    CALL("cushim_launch", "cooperative attribute", NEED_CTX | NEED_STREAM | NEED_MODULE | NEED_FUNC,
         false, op_launch_cooperative_attribute),
    CALL("cushim_launch_cooperative", "cluster", NEED_CTX | NEED_STREAM | NEED_MODULE | NEED_FUNC,
         false, op_launch_cooperative_cluster),
    CALL("cushim_occupancy_max_active_clusters", "", NEED_CTX | NEED_MODULE | NEED_FUNC, false,
         op_occupancy_active_clusters),
    CALL("cushim_occupancy_max_potential_cluster_size", "", NEED_CTX | NEED_MODULE | NEED_FUNC,
         false, op_occupancy_cluster_size),
    CALL("cushim_occupancy_max_active_blocks", "", NEED_CTX | NEED_MODULE | NEED_FUNC, false,
         op_occupancy_blocks),
    CALL("cushim_occupancy_max_potential_block_size", "", NEED_CTX | NEED_MODULE | NEED_FUNC, false,
         op_occupancy_block_size),
    CALL("cushim_occupancy_max_potential_block_size_fn", "", NEED_CTX | NEED_MODULE | NEED_FUNC,
         false, op_occupancy_block_size_fn),
    CALL("cushim_occupancy_max_cooperative_grid", "", NEED_CTX | NEED_MODULE | NEED_FUNC, false,
         op_occupancy_coop_grid),
    CALL("cushim_stream_begin_capture", "", NEED_CTX | NEED_STREAM, false, op_begin_capture),
    CALL("cushim_stream_end_capture", "", NEED_CTX | NEED_STREAM | NEED_CAPTURE, true,
         op_end_capture),
    RELEASE("cushim_graph_release", "", NEED_CTX | NEED_STREAM | NEED_GRAPH, -1, NULL, false,
            op_graph_release),
    CALL("cushim_graph_instantiate", "", NEED_CTX | NEED_STREAM | NEED_GRAPH, true, op_instantiate),
    RELEASE("cushim_graph_exec_release", "", NEED_CTX | NEED_STREAM | NEED_GRAPH | NEED_EXEC, -1,
            NULL, false, op_exec_release),
    CALL("cushim_graph_exec_launch", "", NEED_CTX | NEED_STREAM | NEED_GRAPH | NEED_EXEC, false,
         op_exec_launch),
    CALL("cushim_graph_exec_launch", "default stream",
         NEED_CTX | NEED_STREAM | NEED_GRAPH | NEED_EXEC, false, op_exec_launch_default),
    CALL("cushim_graph_exec_upload", "", NEED_CTX | NEED_STREAM | NEED_GRAPH | NEED_EXEC, false,
         op_exec_upload),
    CALL("cushim_graph_exec_upload", "default stream",
         NEED_CTX | NEED_STREAM | NEED_GRAPH | NEED_EXEC, false, op_exec_upload_default),
    CALL("cushim_graph_exec_update", "", NEED_CTX | NEED_STREAM | NEED_GRAPH | NEED_EXEC, false,
         op_exec_update),
    CALL("cushim_stream_launch_host_func", "", NEED_CTX | NEED_STREAM, false, op_host_func),
    CALL("cushim_stream_wrap", "", NEED_CTX | NEED_STREAM, true, op_stream_wrap),
    CALL("cushim_event_wrap", "", NEED_CTX | NEED_STREAM | NEED_EVENTS, true, op_event_wrap),
    CALL("cushim_context_wrap", "", NEED_CTX, true, op_context_wrap),
    CALL("cushim_context_wrap", "current context", NEED_CTX, true, op_context_wrap_current),
    CALL("cushim_program_load", "PTX", NEED_CTX, true, op_program_load_ptx),
    CALL("cushim_program_load", "cubin", NEED_CTX, true, op_program_load_cubin),
    CALL("cushim_linker_create", "", NEED_CTX, true, op_linker_create),
    CALL("cushim_linker_complete", "", NEED_CTX | NEED_LINKER, true, op_linker_complete),
};
#define NSCENARIOS (sizeof scenarios / sizeof scenarios[0])

/* Public functions that never call the driver (beyond cushim_init, swept on its own): their
 * failures are argument checks, covered by the hostile-input tests. */
static const char *const driverless[] = {
    "cushim_error_name",        "cushim_error_string",    "cushim_last_error",
    "cushim_log_set_handler",   "cushim_context_retain",  "cushim_context_raw",
    "cushim_context_device",    "cushim_stream_retain",   "cushim_stream_same_queue",
    "cushim_stream_context",    "cushim_stream_raw",      "cushim_event_retain",
    "cushim_event_context",     "cushim_event_raw",       "cushim_module_retain",
    "cushim_library_retain",    "cushim_function_raw",    "cushim_testing_reinit",
    "cushim_graph_retain",      "cushim_graph_raw",       "cushim_graph_context",
    "cushim_graph_exec_retain", "cushim_graph_exec_raw",  "cushim_graph_exec_context",
    "cushim_context_recycling", "cushim_hook_add",        "cushim_hook_remove",
    "cushim_trace_start",       "cushim_trace_stop",      "cushim_lib_state",
    "cushim_program_retain",    "cushim_program_release", "cushim_program_log",
    "cushim_program_code",      "cushim_linker_retain",   "cushim_linker_log",
};
/* Functions that call NVRTC or nvJitLink and not the driver (but for the linker's cuLink*
 * fallback, which the mock does not implement): test_toolkit_allocs fails each of their
 * allocations in turn. */
static const char *const toolkit_functions[] = {
    "cushim_program_create",
    "cushim_program_compile",
    "cushim_linker_add",
    "cushim_linker_release",
};
/* Swept in forked children by test_init_sweep. */
static const char *const init_functions[] = {
    "cushim_init",
    "cushim_driver_state",
    "cushim_driver",
    "cushim_driver_has",
};

/* ------------------------------------------------------------------------------------------ */
/* One run                                                                                    */
/* ------------------------------------------------------------------------------------------ */

static const CUresult codes[] = {CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_INVALID_CONTEXT,
                                 CUDA_ERROR_UNKNOWN};
#define NCODES (sizeof codes / sizeof codes[0])

/* Which context is current while the call runs: none, another one (so that the call must
 * switch and switch back), or the call's own (so that it need not). */
enum { CURRENT_NONE, CURRENT_OTHER, CURRENT_OWN, NCURRENT };
static const char *const current_names[] = {"no context current", "another context current",
                                            "its own context current"};

/* (function, driver call) and (function, allocation) pairs swept, and the faulted runs made
 * (a driver call is failed with each of the codes). */
static int swept_pairs, swept_alloc_pairs, faulted_runs, driver_calls_seen[NSCENARIOS];
static bool scenario_ran[NSCENARIOS];
static char failure[512];

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            snprintf(failure, sizeof failure, __VA_ARGS__);                                        \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

static bool make(fx *x, unsigned needs) {
    memset(x, 0, sizeof *x);
    if ((needs & NEED_CTX) && cushim_context_create(&x->ctx, 0, 0) != CUDA_SUCCESS) return false;
    if ((needs & NEED_PRIMARY) && cushim_context_primary(&x->primary, 0) != CUDA_SUCCESS) {
        return false;
    }
    if (needs & NEED_CACHED) {
        /* Made and released: the context keeps both (the stream has no work). */
        cushim_stream *s = NULL;
        cushim_event *e = NULL;
        if (cushim_stream_create(&s, x->ctx, 0, 0) != CUDA_SUCCESS) return false;
        if (cushim_event_create(&e, x->ctx, 0) != CUDA_SUCCESS) return false;
        cushim_stream_release(s);
        cushim_event_release(e);
        cushim_recycling info;
        if (cushim_context_recycling(&info, x->ctx) != CUDA_SUCCESS) return false;
        if (info.streams_held != 1 || info.events_held != 1) return false;
    }
    if ((needs & NEED_STREAM) && cushim_stream_create(&x->s, x->ctx, 0, 0) != CUDA_SUCCESS) {
        return false;
    }
    if (needs & NEED_EVENTS) {
        if (cushim_event_create(&x->e1, x->ctx, 0) != CUDA_SUCCESS) return false;
        if (cushim_event_create(&x->e2, x->ctx, 0) != CUDA_SUCCESS) return false;
        if (cushim_event_record(x->e1, x->s) != CUDA_SUCCESS) return false;
        if (cushim_event_record(x->e2, x->s) != CUDA_SUCCESS) return false;
        if (cushim_stream_synchronize(x->s) != CUDA_SUCCESS) return false;
    }
    if ((needs & NEED_MODULE) && cushim_module_load_data(&x->m, x->ctx, ptx) != CUDA_SUCCESS) {
        return false;
    }
    if (needs & NEED_FUNC) {
        if (cushim_module_function(&x->f, x->m, "cushim_empty") != CUDA_SUCCESS) return false;
        if (cushim_module_function(&x->fcoop, x->m, "cushim_grid_barrier") != CUDA_SUCCESS) {
            return false;
        }
    }
    if ((needs & NEED_LIBRARY) && cushim_library_load_data(&x->lib, ptx) != CUDA_SUCCESS) {
        return false;
    }
    if (needs & (NEED_GRAPH | NEED_CAPTURE)) {
        if (cushim_stream_begin_capture(x->s, CU_STREAM_CAPTURE_MODE_GLOBAL) != CUDA_SUCCESS ||
            cushim_stream_launch_host_func(x->s, host_nothing, NULL) != CUDA_SUCCESS) {
            return false;
        }
    }
    if ((needs & NEED_GRAPH) && cushim_stream_end_capture(&x->g, x->s) != CUDA_SUCCESS) {
        return false;
    }
    if ((needs & NEED_EXEC) && cushim_graph_instantiate(&x->x, x->g, 0) != CUDA_SUCCESS) {
        return false;
    }
    if (needs & NEED_LINKER) {
        const void *ir;
        size_t size;
        const char *lto[] = {"-lto"};
        if (cushim_linker_create(&x->linker, x->ctx, 1, lto) != CUDA_SUCCESS ||
            cushim_program_code(programs[2], CUSHIM_CODE_LTOIR, &ir, &size) != CUDA_SUCCESS ||
            cushim_linker_add(x->linker, CUSHIM_CODE_LTOIR, ir, size, NULL) != CUDA_SUCCESS) {
            return false;
        }
    }
    x->target = x->ctx ? cushim_context_raw(x->ctx) : NULL;
    return true;
}

static void drop(fx *x, const scenario *sc) {
    if (x->out) x->release_out(x->out);
    cushim_linker_release(x->linker);
    bool by_op = x->released_by_op;
    if (!(by_op && sc->op == op_exec_release)) cushim_graph_exec_release(x->x);
    if (!(by_op && sc->op == op_graph_release)) cushim_graph_release(x->g);
    if (!(by_op && sc->op == op_event_release)) cushim_event_release(x->e1);
    cushim_event_release(x->e2);
    if (!(by_op && sc->op == op_stream_release)) cushim_stream_release(x->s);
    if (!(by_op && sc->op == op_module_release)) cushim_module_release(x->m);
    if (!(by_op && sc->op == op_library_release)) cushim_library_release(x->lib);
    cushim_context_release(x->primary);
    if (!(by_op && sc->op == op_context_release)) cushim_context_release(x->ctx);
}

/* The driver calls and allocations of one clean run of sc. */
typedef struct recording {
    int ncalls;
    const char *calls[64];
    int nallocs;
} recording;

/* A fresh mock with one more device than needed: the launch tests never change device 0. */
static CUcontext other_context;

static bool start_run(int current) {
    mock.reset();
    memset(&captured, 0, sizeof captured);
    cushim__block_cache_drain();
    other_context = NULL;
    if (current == CURRENT_OTHER) {
        /* A context cushim knows nothing of, made current as a user's own would be. */
        CUdevice dev;
        if (cushim_driver()->cuDeviceGet(&dev, 0) != CUDA_SUCCESS) return false;
        if (cushim_driver()->cuCtxCreate(&other_context, NULL, 0, dev) != CUDA_SUCCESS) {
            return false;
        }
    }
    return cushim_driver()->cuCtxSetCurrent(other_context) == CUDA_SUCCESS;
}

static void end_run(void) {
    cushim_driver()->cuCtxSetCurrent(NULL);
    if (other_context) cushim_driver()->cuCtxDestroy(other_context);
}

static bool record(const scenario *sc, int current, recording *rec) {
    memset(rec, 0, sizeof *rec);
    EXPECT(start_run(current), "the run could not be set up");
    fx x;
    bool made = make(&x, sc->needs);
    EXPECT(made, "setup failed: %s", cushim_last_error());
    if (current == CURRENT_OWN) cushim_driver()->cuCtxSetCurrent(x.target);
    int before = mock.calls("*");
    alloc.counting = true;
    alloc.count = 0;
    alloc.fail_at = 0;
    CUresult r = sc->op(&x);
    alloc.counting = false;
    rec->nallocs = alloc.count;
    int after = mock.calls("*");
    rec->ncalls = after - before;
    EXPECT(rec->ncalls <= (int)(sizeof rec->calls / sizeof rec->calls[0]), "too many calls");
    for (int i = 0; i < rec->ncalls; i++) rec->calls[i] = mock.call_name(before + i);
    EXPECT(r == CUDA_SUCCESS, "the clean run failed with %s: %s", cushim_error_name(r),
           cushim_last_error());
    drop(&x, sc);
    for (int k = 0; k < CUSHIM_MOCK_KIND_COUNT; k++) {
        EXPECT(mock.live(k) == (k == CUSHIM_MOCK_CONTEXT && other_context ? 1 : 0),
               "the clean run left %d objects of kind %d", mock.live(k), k);
    }
    end_run();
    return true;
}

/* Whether call k (0-based) of the recording switches back: a cuCtxSetCurrent after an earlier
 * one. A refused switch back leaves the switched-to context current. */
static bool is_switch_back(const recording *rec, int k) {
    if (strcmp(rec->calls[k], "cuCtxSetCurrent") != 0) return false;
    for (int i = 0; i < k; i++) {
        if (strcmp(rec->calls[i], "cuCtxSetCurrent") == 0) return true;
    }
    return false;
}

/* One faulted run: driver call k (1-based) fails with code, or (code 0) allocation k fails. */
static bool faulted(const scenario *sc, int current, const recording *rec, int k, CUresult code) {
    EXPECT(start_run(current), "the run could not be set up");
    fx x;
    bool made = make(&x, sc->needs);
    EXPECT(made, "setup failed: %s", cushim_last_error());
    if (current == CURRENT_OWN) cushim_driver()->cuCtxSetCurrent(x.target);
    CUcontext before = mock.current();
    cushim_log_set_handler(capture_log, &captured, CUSHIM_LOG_DEBUG);
    memset(&captured, 0, sizeof captured);
    cushim__block_cache_drain();
    int calls_before = mock.calls("*");
    CUresult expected = code ? code : CUDA_ERROR_OUT_OF_MEMORY;
    if (code) {
        mock.fail_any(k, code);
    } else {
        alloc.count = 0;
        alloc.fail_at = k;
        alloc.counting = true;
    }
    cushim__clear_error(); /* the sentence checked below must be this call's */
    CUresult r = sc->op(&x);
    alloc.counting = false;
    alloc.fail_at = 0;
    mock.fail_any(0, CUDA_SUCCESS);
    int made_calls = mock.calls("*") - calls_before;
    CUcontext now = mock.current();

    if (sc->absorbs) {
        EXPECT(captured.count[CUSHIM_LOG_WARN] == 0, "a fall-back logged a warning: %.200s",
               captured.text);
    } else if (sc->is_void) {
        EXPECT(captured.count[CUSHIM_LOG_WARN] >= 1, "the refusal was not logged at warn");
        EXPECT(strstr(captured.text, cushim_error_name(expected)) != NULL,
               "the warning does not name %s: %.200s", cushim_error_name(expected), captured.text);
    } else {
        EXPECT(r == expected, "returned %s, not %s", cushim_error_name(r),
               cushim_error_name(expected));
        EXPECT(cushim_last_error()[0] != '\0', "no sentence in cushim_last_error()");
    }
    if (sc->has_out) EXPECT(x.out == NULL, "the out-pointer is %p, not NULL", x.out);
    if (code && is_switch_back(rec, k - 1)) {
        EXPECT(now == x.target || now == before,
               "after a refused switch back the current context is %p", (void *)now);
    } else {
        EXPECT(now == before, "the current context is %p, was %p", (void *)now, (void *)before);
    }
    EXPECT(made_calls <= rec->ncalls + 4, "the faulted run made %d driver calls, the clean %d",
           made_calls, rec->ncalls);
    cushim_driver()->cuCtxSetCurrent(before);
    cushim_log_set_handler(NULL, NULL, CUSHIM_LOG_WARN);
    x.out = NULL; /* a failure made nothing */
    drop(&x, sc);
    /* A release whose destroy the fault refused leaves that one object with the driver; every
     * other run leaves nothing. */
    bool refused_destroy =
        sc->is_void && code && sc->kept >= 0 && strcmp(rec->calls[k - 1], sc->kept_by) == 0;
    for (int kind = 0; kind < CUSHIM_MOCK_KIND_COUNT; kind++) {
        int want = (kind == CUSHIM_MOCK_CONTEXT && other_context) ? 1 : 0;
        if (refused_destroy && kind == sc->kept) want++;
        EXPECT(mock.live(kind) == want, "%d objects of kind %d live after release, not %d",
               mock.live(kind), kind, want);
    }
    end_run();
    return true;
}

static void sweep_scenario(const scenario *sc, size_t index) {
    for (int current = 0; current < NCURRENT; current++) {
        /* With no context of its own there is none to make current; and synchronizing "the
         * current context" needs one. */
        if (current == CURRENT_OWN && !(sc->needs & NEED_CTX)) continue;
        if (sc->op == op_device_synchronize && current != CURRENT_OWN) continue;
        if (sc->op == op_context_wrap_current && current != CURRENT_OWN) continue;
        /* Destroying the current context leaves none current, as the driver does; the plain
         * release covers its own context current, where a refused destroy leaves it so. */
        if (sc->op == op_context_release && (sc->needs & NEED_CACHED) && current == CURRENT_OWN) {
            continue;
        }
        recording rec;
        if (!record(sc, current, &rec)) {
            fail_msg("%s %s (%s): recording: %s", sc->function, sc->variant, current_names[current],
                     failure);
        }
        driver_calls_seen[index] += rec.ncalls;
        for (int k = 1; k <= rec.ncalls; k++) {
            for (size_t c = 0; c < NCODES; c++) {
                if (!faulted(sc, current, &rec, k, codes[c])) {
                    fail_msg("%s %s (%s): driver call %d of %d (%s) failing with %s: %s",
                             sc->function, sc->variant, current_names[current], k, rec.ncalls,
                             rec.calls[k - 1], cushim_error_name(codes[c]), failure);
                }
                faulted_runs++;
            }
            swept_pairs++;
        }
        for (int k = 1; k <= rec.nallocs; k++) {
            if (!faulted(sc, current, &rec, k, CUDA_SUCCESS)) {
                fail_msg("%s %s (%s): allocation %d of %d failing: %s", sc->function, sc->variant,
                         current_names[current], k, rec.nallocs, failure);
            }
            faulted_runs++;
            swept_alloc_pairs++;
        }
    }
    scenario_ran[index] = true;
}

/* ------------------------------------------------------------------------------------------ */
/* Tests                                                                                      */
/* ------------------------------------------------------------------------------------------ */

/* cushim_init in forked children, before this process initialises: each child fails driver
 * call k of the initialisation and checks what the four init functions say. */
static void test_init_sweep(void **state) {
    (void)state;
    int ncalls = -1;
    for (int k = 0;; k++) {
        for (size_t c = 0; c < (k == 0 ? 1 : NCODES); c++) {
            fflush(NULL);
            pid_t pid = fork();
            assert_true(pid >= 0);
            if (pid == 0) {
                alarm(20);
                cushim_mock_api m;
                if (!cushim_mock_open(&m, NULL)) _exit(101);
                if (k == 0) {
                    /* The clean run: report how many driver calls initialising makes. */
                    int before = m.calls("*");
                    if (cushim_init() != CUDA_SUCCESS) _exit(102);
                    _exit(m.calls("*") - before);
                }
                m.fail_any(k, codes[c]);
                CUresult r = cushim_init();
                const cushim_driver_info *info = cushim_driver_state();
                bool ok = r == codes[c] && cushim_last_error()[0] != '\0' &&
                          info->status == CUSHIM_DRIVER_INIT_FAILED && info->result == r &&
                          cushim_driver() != NULL && !cushim_driver_has("cuInit") &&
                          cushim_init() == r; /* the answer stays */
                if (!ok) {
                    fprintf(stderr, "init call %d failing with %s: returned %s, status %d: %s\n", k,
                            cushim_error_name(codes[c]), cushim_error_name(r), info->status,
                            cushim_last_error());
                }
                _exit(ok ? 0 : 103);
            }
            int status = 0;
            assert_int_equal(waitpid(pid, &status, 0), pid);
            assert_true(WIFEXITED(status));
            if (k == 0) {
                ncalls = WEXITSTATUS(status);
                assert_in_range(ncalls, 1, 100);
            } else {
                assert_int_equal(WEXITSTATUS(status), 0);
                faulted_runs++;
            }
        }
        if (k > 0) swept_pairs++;
        if (k >= ncalls) break;
    }
    printf("# cushim_init: %d driver calls, each failed with %zu codes\n", ncalls, NCODES);
}

/* Compiles programs[k] with NVRTC: PTX, a cubin for sm_90 (the mock's device), LTO IR. */
static bool compile_programs(void) {
    static const char *const options[3][2] = {
        {"-arch=compute_90", NULL}, {"-arch=sm_90", NULL}, {"-arch=sm_90", "-dlto"}};
    for (int k = 0; k < 3; k++) {
        if (cushim_program_create(&programs[k], kernel_source, NULL, 0, NULL, NULL) !=
                CUDA_SUCCESS ||
            cushim_program_compile(programs[k], options[k][1] ? 2 : 1, options[k]) !=
                CUDA_SUCCESS) {
            fprintf(stderr, "# compiling with NVRTC failed: %s\n", cushim_last_error());
            return false;
        }
    }
    return true;
}

static int sweep_setup(void **state) {
    if (mock_setup(state) != 0 || !compile_programs()) return -1;
    /* A module on disk for cushim_module_load_file. */
    snprintf(ptx_path, sizeof ptx_path, "/tmp/cushim-sweep-XXXXXX");
    int fd = mkstemp(ptx_path);
    if (fd < 0) return -1;
    bool written = write(fd, ptx, sizeof ptx - 1) == (ssize_t)(sizeof ptx - 1);
    close(fd);
    /* Read every device limit once, so that each run sees the steady state. */
    fx x;
    if (!written || !start_run(CURRENT_NONE) || !make(&x, NEED_CTX | NEED_MODULE | NEED_FUNC)) {
        return -1;
    }
    scenario dummy = {0};
    drop(&x, &dummy);
    end_run();
    return 0;
}

static int sweep_teardown(void **state) {
    for (int k = 0; k < 3; k++) cushim_program_release(programs[k]);
    unlink(ptx_path);
    return mock_teardown(state);
}

static void test_sweep_all(void **state) {
    (void)state;
    for (size_t i = 0; i < NSCENARIOS; i++) sweep_scenario(&scenarios[i], i);
}

/* One run of a toolkit function with allocation k failing (0: none); the run's allocations are
 * counted into *count. A failure must be CUDA_ERROR_OUT_OF_MEMORY with a sentence and a NULL
 * out-pointer; ASan and valgrind see that nothing leaks. */
static bool toolkit_run(int k, int *count) {
    cushim_context *ctx = NULL;
    if (cushim_context_create(&ctx, 0, 0) != CUDA_SUCCESS) return false;
    const void *ir;
    size_t size;
    if (cushim_program_code(programs[2], CUSHIM_CODE_LTOIR, &ir, &size) != CUDA_SUCCESS) {
        return false;
    }
    cushim_program *p = NULL;
    cushim_linker *l = NULL;
    const char *arch[] = {"-arch=compute_90"}, *lto[] = {"-lto"};
    alloc.count = 0;
    alloc.fail_at = k;
    alloc.counting = true;
    cushim__clear_error();
    CUresult r = cushim_program_create(&p, kernel_source, NULL, 0, NULL, NULL);
    if (r == CUDA_SUCCESS) r = cushim_program_compile(p, 1, arch);
    if (r == CUDA_SUCCESS) r = cushim_linker_create(&l, ctx, 1, lto);
    bool added = r == CUDA_SUCCESS; /* on the mock, cushim keeps a copy of LTO IR it links */
    if (added) r = cushim_linker_add(l, CUSHIM_CODE_LTOIR, ir, size, "ir");
    cushim_linker_release(l);
    alloc.counting = false;
    alloc.fail_at = 0;
    *count = alloc.count;
    bool ok = k == 0 ? r == CUDA_SUCCESS
                     : r == CUDA_ERROR_OUT_OF_MEMORY && cushim_last_error()[0] != '\0' &&
                           (p == NULL || l == NULL || added);
    if (!ok) {
        fprintf(stderr, "# allocation %d failing: %s: %s\n", k, cushim_error_name(r),
                cushim_last_error());
    }
    cushim_program_release(p);
    cushim_context_release(ctx);
    return ok;
}

/* The NVRTC and nvJitLink path, each of cushim's allocations on it failing in turn. */
static void test_toolkit_allocs(void **state) {
    (void)state;
    int total = 0, count = 0;
    assert_true(toolkit_run(0, &total));
    assert_true(total > 0);
    for (int k = 1; k <= total; k++) {
        assert_true(toolkit_run(k, &count));
        swept_alloc_pairs++;
        faulted_runs++;
    }
    printf("# program create and compile, linker create, add and release: %d allocations, each "
           "failed\n",
           total);
}

static bool listed(const char *name, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (strcmp(list[i], name) == 0) return true;
    }
    return false;
}

/* Every CUSHIM_API function in cushim.h is swept, or initialises only, or is listed as making
 * no driver call; and every swept one did make driver calls. */
static void test_coverage(void **state) {
    (void)state;
    FILE *f = fopen(CUSHIM_HEADER, "r");
    assert_non_null(f);
    char line[512];
    int public = 0;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "CUSHIM_API ");
        if (p == NULL || strncmp(line, "CUSHIM_API", 10) != 0) continue;
        /* The name is the identifier just before the first '('. */
        const char *paren = strchr(p, '(');
        if (paren == NULL) continue;
        const char *name = paren;
        while (name > p && (isalnum((unsigned char)name[-1]) || name[-1] == '_')) name--;
        char fn[128];
        size_t n = (size_t)(paren - name);
        if (n == 0 || n >= sizeof fn) continue;
        memcpy(fn, name, n);
        fn[n] = '\0';
        public++;
        if (listed(fn, driverless, sizeof driverless / sizeof driverless[0])) continue;
        if (listed(fn, init_functions, sizeof init_functions / sizeof init_functions[0])) continue;
        if (listed(fn, toolkit_functions, sizeof toolkit_functions / sizeof toolkit_functions[0])) {
            continue;
        }
        /* Some of a function's scenarios may make no driver call (a create served from a
         * context's cache); one at least must. */
        bool found = false, called = false;
        for (size_t i = 0; i < NSCENARIOS; i++) {
            if (strcmp(scenarios[i].function, fn) != 0) continue;
            found = true;
            if (!scenario_ran[i]) fail_msg("%s %s: not swept", fn, scenarios[i].variant);
            if (driver_calls_seen[i] > 0) called = true;
        }
        if (!found)
            fail_msg("%s is public and calls the driver, but the sweep does not cover it", fn);
        if (!called) fail_msg("%s: swept without a driver call", fn);
    }
    fclose(f);
    assert_true(public > 40);
    printf("# %d (function, driver call) pairs, each failed with %zu codes, and %d (function, "
           "allocation) pairs: %d faulted runs over %zu scenarios in up to 3 current-context "
           "states, and cushim_init\n",
           swept_pairs, NCODES, swept_alloc_pairs, faulted_runs, NSCENARIOS);
    printf("# fault sweep: %d (function, call) pairs\n", swept_pairs + swept_alloc_pairs);
    assert_true(swept_pairs > 0 && swept_alloc_pairs > 0);
}

int main(void) {
    /* In this order: the init sweep must run before this process initialises. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_sweep),
        cmocka_unit_test_setup_teardown(test_sweep_all, sweep_setup, sweep_teardown),
        cmocka_unit_test_setup_teardown(test_toolkit_allocs, sweep_setup, sweep_teardown),
        cmocka_unit_test(test_coverage),
    };
    return cmocka_run_group_tests_name("fault sweep", tests, NULL, NULL);
}
