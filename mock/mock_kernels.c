/* Kernels on the host: a launch copies its parameters (split by the sizes from the image) and
 * queues the kernel's run at its place in stream order. What runs, in this order: a host
 * implementation (registered through the control API, or exported as cushim_mock_kernel_<name>
 * by the shared library that CUSHIM_MOCK_KERNELS names, opened on the first launch that needs
 * it, each name looked up once); else the kernel's PTX, by the interpreter (ptx/ptx.h); else
 * the launch fails, loudly, unless the test asked for no-op kernels. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "ptx.h"

/* The most local memory a GPU thread may have (the CUDA C++ Programming Guide's table of
 * technical specifications: 512 KiB for every compute capability the mock has). */
#define MOCK_MAX_LOCAL (512u * 1024u)

struct mock_host_kernel {
    char *name;
    cushim_mock_kernel_fn fn;
    bool registered; /* through the control API: the library is not asked */
    bool looked_up;  /* the library was asked (fn is its answer, NULL for none) */
    int runs;
};

static void *kernels_lib;
static bool kernels_lib_tried;

static mock_host_kernel *host_kernel(const char *name, bool add) {
    for (size_t i = 0; i < mock__state.nhost_kernels; i++) {
        if (strcmp(mock__state.host_kernels[i].name, name) == 0)
            return &mock__state.host_kernels[i];
    }
    if (!add || !mock__grow(&mock__state.host_kernels, &mock__state.caphost_kernels,
                            mock__state.nhost_kernels + 1, sizeof *mock__state.host_kernels)) {
        return NULL;
    }
    char *copy = malloc(strlen(name) + 1);
    if (copy == NULL) return NULL;
    strcpy(copy, name);
    mock__state.host_kernels[mock__state.nhost_kernels] = (mock_host_kernel){.name = copy};
    return &mock__state.host_kernels[mock__state.nhost_kernels++];
}

/* The library of CUSHIM_MOCK_KERNELS, opened once; NULL when unset or unloadable (said once). */
static void *library(void) {
    if (kernels_lib_tried) return kernels_lib;
    kernels_lib_tried = true;
    const char *path = getenv("CUSHIM_MOCK_KERNELS");
    if (path == NULL || path[0] == '\0') return NULL;
    char why[192];
    if (!mock__library_file_ok(path, why, sizeof why)) {
        fprintf(stderr,
                "cushim mock: CUSHIM_MOCK_KERNELS=\"%s\" is refused: %s; kernels run no code\n",
                path, why);
        return NULL;
    }
    kernels_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (kernels_lib == NULL) {
        fprintf(stderr, "cushim mock: CUSHIM_MOCK_KERNELS: %s; kernels run no code\n", dlerror());
    }
    return kernels_lib;
}

static mock_host_kernel *find_impl(const char *name) {
    mock_host_kernel *k = host_kernel(name, true);
    if (k == NULL || k->registered || k->looked_up) return k;
    k->looked_up = true;
    void *lib = library();
    if (lib == NULL) return k;
    char sym[512];
    if (snprintf(sym, sizeof sym, "cushim_mock_kernel_%s", name) >= (int)sizeof sym) return k;
    void *p = dlsym(lib, sym);
    memcpy(&k->fn, &p, sizeof p); /* dlsym gives an object pointer; this is a function */
    return k;
}

void mock__kernels_reset(void) {
    for (size_t i = 0; i < mock__state.nhost_kernels; i++) free(mock__state.host_kernels[i].name);
    free(mock__state.host_kernels);
    mock__state.host_kernels = NULL;
    mock__state.nhost_kernels = mock__state.caphost_kernels = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Launches                                                                                   */
/* ------------------------------------------------------------------------------------------ */

typedef struct klaunch {
    char *name;
    mock_launch_in in; /* params and extra are the program's: not used after the call */
    CUlaunchAttribute attrs[8];
    int nparams; /* -1: unknown */
    unsigned char *buf;
    void **params;
    const mock_ptx_kernel *ptx;     /* run by the interpreter; NULL: host kernel or no-op */
    struct mock_ptx_module *module; /* ptx's module, held while the launch is (mock_image.h) */
    struct CUctx_st *ctx;
    int sms;
    unsigned checks; /* CUSHIM_MOCK_CHECK's, chosen at the launch */
    bool check_report;
    mock_ptx_ref *refs; /* the module's texture and surface references as bound at the launch */
    size_t nrefs;
} klaunch;

/* Device memory for the interpreter: the mock's ranges. */
static bool kernel_access(void *ctx, uintptr_t p, size_t n, uintptr_t *lo, uintptr_t *hi, char *why,
                          size_t len) {
    (void)ctx;
    return mock__kernel_access(p, n, lo, hi, why, len);
}

static unsigned char *init_map(void *ctx, uintptr_t p, uintptr_t *lo, uintptr_t *hi) {
    (void)ctx;
    return mock__init_map(p, lo, hi);
}

/* A kernel's fault, as the GPU's: sticky in its context, and said on stderr. */
static void kernel_fault(klaunch *l, CUresult r, const char *err) {
    snprintf(mock__state.kernel_error, sizeof mock__state.kernel_error, "%s", err);
    mock__why("%s", err);
    fprintf(stderr,
            "cushim mock: %s (CUresult %d); the context is unusable from now on, as "
            "after a fault on a GPU\n",
            err, (int)r);
    if (l->ctx != NULL && l->ctx->sticky == CUDA_SUCCESS) {
        l->ctx->sticky = r;
        mock__state.sticky_count++;
    }
}

/* A kernel's interpretation: what it needs, taken under the lock, and its answer. */
typedef struct ptx_job {
    const mock_ptx_kernel *k;
    mock_ptx_launch pl;
    CUresult r;
    char err[1024];
} ptx_job;

static void interpret(void *arg) {
    ptx_job *j = arg;
    j->r = mock__ptx_run(j->k, &j->pl, j->err, sizeof j->err);
}

/* The interpretation runs without the mock's lock: other threads' calls (a query, an
 * allocation) answer meanwhile, as they do while a GPU runs a kernel. */
static void run_ptx(klaunch *l) {
    ptx_job j = {
        .k = l->ptx,
        .pl =
            {
                .grid = {l->in.grid[0], l->in.grid[1], l->in.grid[2]},
                .block = {l->in.block[0], l->in.block[1], l->in.block[2]},
                .dynamic_smem = l->in.smem,
                .params = l->params,
                .cooperative = l->in.cooperative,
                .sm_count = l->sms,
                .check = kernel_access,
                .texture = mock__texobj_lookup,
                .checks = l->checks,
                .init_map = init_map,
                .check_report = l->check_report,
                .heap = l->ctx != NULL ? mock__ctx_heap(l->ctx) : NULL,
                .refs = l->refs,
                .nrefs = l->nrefs,
            },
    };
    mock__run_unlocked(interpret, &j);
    if (j.r != CUDA_SUCCESS) {
        mock__check_fault(l->checks, j.r);
        kernel_fault(l, j.r, j.err);
    }
}

static void run_body(klaunch *l);

/* A kernel's execution, timed and told to the observer (mock_observe.c). */
static void run_kernel(void *arg) {
    klaunch *l = arg;
    mock_kernel_run run = {l->name, l->in.grid, l->in.block, l->in.stream, 0, 0};
    mock__observe_begin(&run);
    run_body(l);
    mock__observe_end(&run);
}

static void run_body(klaunch *l) {
    if (l->ptx != NULL) {
        if (l->ctx == NULL || l->ctx->sticky == CUDA_SUCCESS) run_ptx(l);
        return;
    }
    mock_host_kernel *k = find_impl(l->name);
    if (k == NULL || k->fn == NULL) return;
    cushim_mock_kernel_args a = {
        .kernel = l->name,
        .grid = {l->in.grid[0], l->in.grid[1], l->in.grid[2]},
        .block = {l->in.block[0], l->in.block[1], l->in.block[2]},
        .shared_mem_bytes = l->in.smem,
        .stream = l->in.stream,
        .params = l->params,
        .param_count = l->nparams > 0 ? (unsigned)l->nparams : 0,
    };
    k->runs++;
    k->fn(&a);
}

static void drop_kernel(void *arg) {
    klaunch *l = arg;
    if (l->module != NULL) mock__interp_drop(l->module);
    free(l->refs);
    free(l->name);
    free(l->buf);
    free(l->params);
    free(l);
}

static void record(const klaunch *l, CUstream stream) {
    cushim_mock_launch *r = mock__new_launch();
    if (r == NULL) return;
    snprintf(r->kernel, sizeof r->kernel, "%s", l->name);
    memcpy(r->grid, l->in.grid, sizeof r->grid);
    memcpy(r->block, l->in.block, sizeof r->block);
    r->shared_mem_bytes = l->in.smem;
    r->stream = stream;
    r->context = mock__current();
    r->cooperative = l->in.cooperative;
    r->attr_count = l->in.nattrs;
    memcpy(r->attrs, l->attrs, sizeof r->attrs);
    r->param_count = l->nparams;
}

void mock__kernel_record_replay(void *arg, struct CUstream_st *s) {
    struct CUctx_st *c = mock__stream_ctx(s);
    record(arg, s == &c->default_stream ? NULL : s);
}

/* The `extra` array's buffer: CUDA_ERROR_INVALID_VALUE when it lacks the pointer or size. */
static CUresult extra_buffer(void **extra, const void **buf, size_t *size) {
    *buf = NULL;
    *size = 0;
    bool have_size = false;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (i > 1024) return CUDA_ERROR_INVALID_VALUE;
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
            *buf = extra[i + 1];
        } else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1] != NULL) {
            *size = *(const size_t *)extra[i + 1];
            have_size = true;
        } else {
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    return *buf != NULL && have_size ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Copies the parameters, as the driver does at the launch: by the image's sizes, from the
 * kernelParams array or from the `extra` buffer. Unknown sizes: an `extra` buffer is passed
 * whole as params[0]. */
static CUresult copy_params(klaunch *l, const mock_kentry *ke, void **params, void **extra) {
    const void *ebuf = NULL;
    size_t esize = 0, total = 0;
    if (extra != NULL) {
        CUresult r = extra_buffer(extra, &ebuf, &esize);
        if (r != CUDA_SUCCESS) return r;
    }
    if (ke->nparams < 0) {
        if (ebuf == NULL) return CUDA_SUCCESS;
        l->buf = malloc(esize ? esize : 1);
        l->params = malloc(sizeof *l->params);
        if (l->buf == NULL || l->params == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
        memcpy(l->buf, ebuf, esize);
        l->params[0] = l->buf;
        return CUDA_SUCCESS;
    }
    for (int i = 0; i < ke->nparams; i++) {
        size_t end = (size_t)ke->params[i].offset + ke->params[i].size;
        if (end > total) total = end;
    }
    if (ebuf != NULL && esize < total) return CUDA_ERROR_INVALID_VALUE;
    l->buf = calloc(1, total ? total : 1);
    l->params = calloc((size_t)ke->nparams + 1, sizeof *l->params);
    if (l->buf == NULL || l->params == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    if (ebuf != NULL) memcpy(l->buf, ebuf, total);
    for (int i = 0; i < ke->nparams; i++) {
        unsigned char *at = l->buf + ke->params[i].offset;
        if (ebuf == NULL && params != NULL && params[i] != NULL) {
            memcpy(at, params[i], ke->params[i].size);
        }
        l->params[i] = at;
    }
    return CUDA_SUCCESS;
}

static bool noop_kernels(void) {
    const char *e = getenv("CUSHIM_MOCK_NOOP_KERNELS");
    return mock__state.noop_kernels || (e != NULL && strcmp(e, "1") == 0);
}

/* A launch's refusal: the code, and the sentence on stderr and for the control API. */
static CUresult refuse(CUresult r, const char *fmt, ...) MOCK_PRINTF(2, 3);
static CUresult refuse(CUresult r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mock__state.kernel_error, sizeof mock__state.kernel_error, fmt, ap);
    va_end(ap);
    fprintf(stderr, "cushim mock: %s\n", mock__state.kernel_error);
    mock__why("%s", mock__state.kernel_error);
    return r;
}

/* What runs the kernel: its host implementation, else its PTX, else a no-op if the test asked
 * for them; otherwise the launch fails with CUDA_ERROR_NO_BINARY_FOR_GPU and a sentence. */
static CUresult choose(const mock_kentry *ke, mock_image *img, klaunch *l) {
    mock_host_kernel *h = find_impl(ke->name);
    if (h != NULL && h->fn != NULL) return CUDA_SUCCESS;
    const mock_ptx_kernel *k =
        img != NULL && img->interp != NULL ? mock__ptx_kernel(img->interp, ke->name) : NULL;
    char err[768];
    if (k != NULL) {
        bool ok = mock__ptx_prepare(k, err, sizeof err);
        if (ok && mock__ptx_local_bytes(k) > MOCK_MAX_LOCAL) {
            /* The H200 (driver 580) refuses such a launch with CUDA_ERROR_INVALID_VALUE. */
            return refuse(CUDA_ERROR_INVALID_VALUE,
                          "kernel %s needs %zu bytes of local memory per thread (its .local "
                          "variables and call frames), more than the %u a GPU thread may have",
                          ke->name, mock__ptx_local_bytes(k), MOCK_MAX_LOCAL);
        }
        if (ok && !mock__interp_hold(img->interp)) return CUDA_ERROR_OUT_OF_MEMORY;
        if (ok) {
            l->ptx = k;
            l->module = img->interp;
            return mock__texref_snapshot(img->interp, &l->refs, &l->nrefs);
        }
        if (noop_kernels()) return CUDA_SUCCESS;
        return refuse(CUDA_ERROR_NOT_SUPPORTED,
                      "kernel %s cannot run: its PTX uses what the mock's interpreter does not "
                      "support (%s); give it a host kernel (cushim_mock_kernel_%s in the "
                      "CUSHIM_MOCK_KERNELS library, or register_kernel)",
                      ke->name, err, ke->name);
    }
    if (noop_kernels()) return CUDA_SUCCESS;
    const char *why = "the image has no code the mock can run for it";
    if (img != NULL && img->interp_error != NULL) {
        snprintf(err, sizeof err, "the mock's interpreter cannot read the image's PTX (%s)",
                 img->interp_error);
        why = err;
    } else if (img != NULL && img->nptx == 0 && img->has_sass) {
        why = "the image has only SASS (a cubin), no PTX";
    } else if (img != NULL && img->interp != NULL) {
        why = "the image's PTX has no .entry of that name";
    }
    /* The hint names the device's own target: PTX for a higher one is no help (an sm_90
     * image on the ada profile, 8.9, needs compute_89 or lower). */
    int cc = mock__attr(l->ctx->device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
             mock__attr(l->ctx->device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    return refuse(CUDA_ERROR_NO_BINARY_FOR_GPU,
                  "kernel %s cannot run: %s; build it with PTX for compute capability %d.%d or "
                  "lower (e.g. -gencode arch=compute_%d,code=compute_%d), or give it a host "
                  "kernel (cushim_mock_kernel_%s in the CUSHIM_MOCK_KERNELS library, or "
                  "register_kernel), or set CUSHIM_MOCK_NOOP_KERNELS=1 for kernels that run "
                  "no code",
                  ke->name, why, cc / 10, cc % 10, cc, cc, ke->name);
}

CUresult mock__kernel_submit(const mock_kentry *ke, mock_image *img, struct CUstream_st *s,
                             const mock_launch_in *in) {
    klaunch *l = calloc(1, sizeof *l);
    if (l == NULL) return CUDA_ERROR_OUT_OF_MEMORY;
    l->name = malloc(strlen(ke->name) + 1);
    if (l->name == NULL) {
        free(l);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    strcpy(l->name, ke->name);
    l->in = *in;
    l->in.params = l->in.extra = NULL;
    l->in.attrs = NULL;
    if (l->in.nattrs > 8) l->in.nattrs = 8;
    if (in->nattrs > 0) memcpy(l->attrs, in->attrs, l->in.nattrs * sizeof *l->attrs);
    l->nparams = ke->nparams;
    l->ctx = mock__stream_ctx(s);
    l->sms = mock__attr(l->ctx->device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    mock__check_choose(l->ctx, &l->checks, &l->check_report);
    CUresult r = choose(ke, img, l);
    if (r == CUDA_SUCCESS) r = copy_params(l, ke, in->params, in->extra);
    if (r != CUDA_SUCCESS) {
        drop_kernel(l);
        return r;
    }
    /* Sizes unknown and a kernelParams array: it cannot be copied, so the kernel runs now,
     * after the work before it, while the array is still the caller's. */
    if (ke->nparams < 0 && in->params != NULL) {
        if (s->cap == NULL) {
            mock__implicit_waits(s);
            mock__complete(s, s->submitted, 0);
            record(l, in->stream);
            l->params = in->params;
            run_kernel(l);
            l->params = NULL;
            drop_kernel(l);
            mock__submit(s);
            return CUDA_SUCCESS;
        }
        static bool said;
        if (!said) {
            fprintf(stderr,
                    "cushim mock: kernel %s, of unknown parameter sizes, is captured: "
                    "its host implementation gets no parameters\n",
                    ke->name);
            said = true;
        }
    }
    if (s->cap == NULL) record(l, in->stream);
    return mock__enqueue(s, MOCK_NODE_KERNEL, run_kernel, l, drop_kernel);
}

/* ------------------------------------------------------------------------------------------ */
/* Control                                                                                    */
/* ------------------------------------------------------------------------------------------ */

void mock__register_kernel(const char *name, cushim_mock_kernel_fn fn) {
    mock_host_kernel *k = name ? host_kernel(name, true) : NULL;
    if (k == NULL) return;
    k->fn = fn;
    k->registered = fn != NULL;
    k->looked_up = false; /* unregistered: the library is asked again */
}

int mock__kernel_runs(const char *name) {
    int n = 0;
    for (size_t i = 0; name != NULL && i < mock__state.nhost_kernels; i++) {
        if (strcmp(name, "*") == 0 || strcmp(mock__state.host_kernels[i].name, name) == 0) {
            n += mock__state.host_kernels[i].runs;
        }
    }
    return n;
}
