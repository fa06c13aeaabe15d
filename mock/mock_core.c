/* The mock's core: the lock, the call bookkeeping, the handle registry and the thread's context
 * stack. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"

mock_state mock__state;
/* Recursive: work run in stream order (host functions, host kernels) runs under the lock, and
 * may call back into the mock. */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

/* The calling thread's context stack; its top is the current context. A reset voids every
 * thread's stack at once through the generation. The stack grows (cuCtxCreate pushes, and
 * cuCtxSetCurrent only replaces the top), so it lives on the heap and a thread-specific key
 * frees it when its thread exits. */
static _Thread_local struct CUctx_st **tl_stack;
static _Thread_local size_t tl_depth, tl_cap;
static _Thread_local unsigned tl_generation;
static pthread_key_t tl_key;
static pthread_once_t tl_once = PTHREAD_ONCE_INIT;

/* The first row of each row's base name, so that rows of one base count as one entry. */
static int base_row[MOCK_ENTRY_COUNT];

static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);

static void boot(void) {
    for (int i = 0; i < MOCK_ENTRY_COUNT; i++) {
        base_row[i] = i;
        for (int j = 0; j < i; j++) {
            if (strcmp(mock__rows[i].base, mock__rows[j].base) == 0) {
                base_row[i] = j;
                break;
            }
        }
    }
    mock__state.booted = true;
    mock__state.generation = 1;
    mock__state.next_id = 1;
    mock__state.init_result = MOCK_INIT_RESULT;
    mock__state.driver_version = MOCK_DEFAULT_VERSION;
    mock__state.booted = true; /* the profiles take the lock's state as ready */
    mock__default_devices();
    mock__state.pending = true;
    mock__progress_boot();
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    mock__state.launch_us = 1000;
    mock__state.occupancy_override = -1;
    mock__state.kernel_static_smem = 0;
    mock__state.kernel_regs = 32;
    mock__state.kernel_max_threads = 1024;
}

/* How many times the thread that holds the lock holds it (it is recursive), so that a kernel
 * can run with every hold released, and a wait can release them all. Only the holder reads or
 * writes it. */
static int holds;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

void mock__lock(void) {
    pthread_mutex_lock(&lock);
    holds++;
    if (!mock__state.booted) boot();
}

void mock__unlock(void) {
    holds--;
    pthread_mutex_unlock(&lock);
}

int mock__release_all(void) {
    int n = holds;
    for (int i = 0; i < n; i++) mock__unlock();
    return n;
}

void mock__retake(int n) {
    for (int i = 0; i < n; i++) mock__lock();
}

void mock__wait(void) {
    int n = holds;
    for (int i = 1; i < n; i++) mock__unlock();
    holds = 0;
    pthread_cond_wait(&changed, &lock); /* releases the last hold while it waits */
    holds = 1;
    mock__retake(n - 1);
}

void mock__wake(void) { pthread_cond_broadcast(&changed); }

/* fork: the child's one thread makes the lock and the condition anew (a recursive mutex taken
 * by another thread, or by this one under its old thread id, could not be unlocked there). The
 * prepare handler does not take the lock: the mock is loaded after cushim's loader, so its
 * handler would run first and take the mock's lock before cushim's, the reverse of the order in
 * which cushim_init calls the driver (ThreadSanitizer's lock-order report in the fork tests). A
 * child forked while another thread changes the mock's state may see that change half made; a
 * child that only calls the mock after fork, as the tests' children do, starts from a clean lock.
 */
static void fork_prepare(void) {}
static void fork_parent(void) {}
static void fork_child(void) {
    static const pthread_mutex_t fresh_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    static const pthread_cond_t fresh_cond = PTHREAD_COND_INITIALIZER;
    memcpy(&lock, &fresh_lock, sizeof lock);
    memcpy(&changed, &fresh_cond, sizeof changed);
    holds = 0;
    mock__progress_forked();
}

static bool sticky_exempt(const char *base);

CUresult mock__leave(CUresult r) {
    /* A kernel that faulted while this call ran the queue (a synchronize, a launch on an idle
     * stream): the call answers the fault, as the driver's next call does. */
    if (r == CUDA_SUCCESS && mock__state.sticky_count > 0) {
        struct CUctx_st *c = mock__current();
        if (c != NULL && c->sticky != CUDA_SUCCESS && !sticky_exempt(mock__entry_name())) {
            r = c->sticky;
            mock__why("the context is unusable after a kernel's fault: %s",
                      mock__state.kernel_error);
        }
    }
    mock__why_tell(r);
    mock__unlock();
    return r;
}

void mock__die(const char *entry, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cushim mock: %s: ", entry);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (a refcount or lifetime bug in the code under test)\n");
    va_end(ap);
    fflush(stderr);
    abort();
}

/* Grows the array whose pointer is at v (elements of `size` bytes) to hold `need` elements.
 * The pointer is moved with memcpy, so any object pointer type may be passed. */
static bool grow(void *v, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return true;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need) n *= 2;
    void *old;
    memcpy(&old, v, sizeof old);
    void *p = realloc(old, n * size);
    if (p == NULL) return false;
    memcpy(v, &p, sizeof p);
    *cap = n;
    return true;
}

int mock__base_row(const char *name) {
    if (name == NULL) return -1;
    for (int i = 0; i < MOCK_ENTRY_COUNT; i++) {
        if (strcmp(mock__rows[i].base, name) == 0) return i;
    }
    return -1;
}

static bool sticky_exempt(const char *base) {
    static const char *const prefixes[] = {"cuCtxDestroy",
                                           "cuCtxPop",
                                           "cuCtxPush",
                                           "cuCtxSet",
                                           "cuCtxGet",
                                           "cuDevice",
                                           "cuDriver",
                                           "cuGet",
                                           "cuInit",
                                           "cuModuleUnload",
                                           "cuLibraryUnload",
                                           "cuStreamDestroy",
                                           "cuEventDestroy",
                                           "cuMemFree",
                                           "cuGraphDestroy",
                                           "cuGraphExecDestroy",
                                           "cuMemHostUnregister",
                                           "cuMemRelease",
                                           "cuMemAddressFree",
                                           "cuMemUnmap"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0) return true;
    }
    return false;
}

CUresult mock__enter(mock_entry id, bool anytime) {
    mock__lock();
    mock_state *s = &mock__state;
    /* A call through a per-thread entry is logged under the driver's per-thread symbol. */
    const char *pt = mock__pt_consume(id);
    const char *name = pt ? pt : mock__rows[id].base;
    mock__note_entry(name);
    mock__log_call(name);
    s->total_calls++;
    s->counts[id]++;

    CUresult injected = mock__injected(base_row[id]);
    if (injected != CUDA_SUCCESS) {
        mock__why("a failure the test armed (cushim_mock_api's fail_*)");
        return mock__leave(injected);
    }
    if (!anytime && !s->initialized) {
        mock__why("cuInit has not succeeded in this process");
        return mock__leave(CUDA_ERROR_NOT_INITIALIZED);
    }
    if (!anytime) {
        /* After a kernel's fault, the context answers its code, except to calls that leave it,
         * release things or only ask about devices (as the driver's sticky errors). */
        struct CUctx_st *c = mock__current();
        if (c != NULL && c->sticky != CUDA_SUCCESS && !sticky_exempt(mock__rows[id].base)) {
            mock__why("the context is unusable after a kernel's fault: %s", s->kernel_error);
            return mock__leave(c->sticky);
        }
    }
    return CUDA_SUCCESS;
}

/* Also used by the stubs (mock_coverage.c), whose keys follow the rows. */
CUresult mock__injected(int key) {
    mock_state *s = &mock__state;
    CUresult injected = CUDA_SUCCESS;
    for (int i = 0; i < s->nfails;) {
        mock_fail *f = &s->fails[i];
        if (f->row_base == key && f->remaining < 0) { /* fail_always: stays */
            if (injected == CUDA_SUCCESS) injected = f->code;
        } else if (f->row_base == key && --f->remaining == 0) {
            if (injected == CUDA_SUCCESS) injected = f->code;
            s->fails[i] = s->fails[--s->nfails];
            continue;
        }
        i++;
    }
    if (s->fail_any_remaining > 0 && --s->fail_any_remaining == 0 && injected == CUDA_SUCCESS) {
        injected = s->fail_any_code;
    }
    return injected;
}

/* ------------------------------------------------------------------------------------------ */
/* The registry                                                                               */
/* ------------------------------------------------------------------------------------------ */

static size_t hash_ptr(const void *p) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

static void set_put(mock_obj **set, size_t cap, mock_obj *o) {
    size_t i = hash_ptr(o) & (cap - 1);
    while (set[i] != NULL) i = (i + 1) & (cap - 1);
    set[i] = o;
}

static bool set_insert(mock_obj *o) {
    mock_state *s = &mock__state;
    if ((s->setcount + 1) * 2 > s->setcap) {
        size_t cap = s->setcap ? s->setcap * 2 : 256;
        mock_obj **set = calloc(cap, sizeof *set);
        if (set == NULL) return false;
        for (size_t i = 0; i < s->setcap; i++) {
            if (s->set[i]) set_put(set, cap, s->set[i]);
        }
        free(s->set);
        s->set = set;
        s->setcap = cap;
    }
    set_put(s->set, s->setcap, o);
    s->setcount++;
    return true;
}

mock_obj *mock__find(const void *p) {
    mock_state *s = &mock__state;
    if (p == NULL || s->setcap == 0) return NULL;
    for (size_t i = hash_ptr(p) & (s->setcap - 1); s->set[i] != NULL;
         i = (i + 1) & (s->setcap - 1)) {
        if ((const void *)s->set[i] == p) return s->set[i];
    }
    return NULL;
}

const char *mock__kind_name(int kind) {
    static const char *const names[MOCK_K_COUNT] = {
        [CUSHIM_MOCK_CONTEXT] = "context", [CUSHIM_MOCK_STREAM] = "stream",
        [CUSHIM_MOCK_EVENT] = "event",     [CUSHIM_MOCK_MODULE] = "module",
        [CUSHIM_MOCK_LIBRARY] = "library", [CUSHIM_MOCK_MEMORY] = "allocation",
        [CUSHIM_MOCK_GRAPH] = "graph",     [CUSHIM_MOCK_GRAPH_EXEC] = "graph exec",
        [MOCK_K_FUNCTION] = "function",    [MOCK_K_KERNEL] = "kernel",
        [MOCK_K_ARRAY] = "array",          [MOCK_K_MIPMAP] = "mipmapped array",
    };
    return kind >= 0 && kind < MOCK_K_COUNT ? names[kind] : "object";
}

void *mock__expect(const void *p, int kind, const char *entry) {
    mock_obj *o = mock__find(p);
    if (o == NULL) {
        mock__misuse(entry, "%s handle %p was never made by the mock (or was forgotten by reset)",
                     mock__kind_name(kind), p);
        return NULL;
    }
    if (o->kind != kind) {
        mock__misuse(entry, "handle %p is a %s, not a %s", p, mock__kind_name(o->kind),
                     mock__kind_name(kind));
        return NULL;
    }
    if (!o->alive) {
        mock__misuse(entry, "%s %p was already destroyed", mock__kind_name(kind), p);
        return NULL;
    }
    return o;
}

static void unlink_obj(mock_obj *o) {
    if (o->prev) {
        o->prev->next = o->next;
        o->next->prev = o->prev;
    }
    o->prev = o->next = NULL;
}

/* The ring of dead records of a kind; -1 for kinds kept dead until reset. */
static int dead_ring(int kind) {
    switch (kind) {
    case CUSHIM_MOCK_STREAM: return 0;
    case CUSHIM_MOCK_EVENT: return 1;
    case CUSHIM_MOCK_MODULE: return 2;
    case CUSHIM_MOCK_LIBRARY: return 3;
    case MOCK_K_FUNCTION: return 4;
    case MOCK_K_KERNEL: return 5;
    default: return -1;
    }
}

/* A dead stream or event joins its kind's ring; the oldest there, pushed out, becomes
 * reusable. Without room for the ring the record stays dead until reset, as before. */
static void retire(mock_obj *o) {
    mock_state *s = &mock__state;
    int k = dead_ring(o->kind);
    if (k < 0) return;
    if (s->dead[k] == NULL) {
        s->dead[k] = malloc(MOCK_DEAD_KEEP * sizeof *s->dead[k]);
        if (s->dead[k] == NULL) return;
    }
    if (s->ndead[k] < MOCK_DEAD_KEEP) {
        s->dead[k][(s->dead_first[k] + s->ndead[k]++) % MOCK_DEAD_KEEP] = o;
        return;
    }
    mock_obj *old = s->dead[k][s->dead_first[k]];
    old->next = s->reusable[k];
    s->reusable[k] = old;
    s->dead[k][s->dead_first[k]] = o;
    s->dead_first[k] = (s->dead_first[k] + 1) % MOCK_DEAD_KEEP;
}

/* A reusable record of this kind, emptied, or NULL. A stream keeps its work counts and queue:
 * an event recorded in its earlier life compares its sequence number with the counts, and must
 * still find that work done (all of it was done when the stream died). */
static mock_obj *reuse(int kind, size_t size) {
    mock_state *s = &mock__state;
    int k = dead_ring(kind);
    if (k < 0 || s->reusable[k] == NULL) return NULL;
    mock_obj *o = s->reusable[k];
    s->reusable[k] = o->next;
    if (kind == CUSHIM_MOCK_STREAM) {
        struct CUstream_st *st = (struct CUstream_st *)o;
        unsigned long long submitted = st->submitted, completed = st->completed;
        mock_queue q = st->q;
        memset(st, 0, size);
        st->submitted = submitted;
        st->completed = completed;
        st->q = q;
    } else {
        memset(o, 0, size);
    }
    return o;
}

static void forget_dead(void) {
    mock_state *s = &mock__state;
    for (int k = 0; k < MOCK_DEAD_RINGS; k++) {
        free(s->dead[k]);
        s->dead[k] = NULL;
        s->dead_first[k] = s->ndead[k] = 0;
        s->reusable[k] = NULL;
    }
}

void *mock__new(size_t size, int kind, struct CUctx_st *ctx) {
    mock_state *s = &mock__state;
    mock_obj *o = reuse(kind, size);
    if (o == NULL) {
        if (!grow(&s->objs, &s->capobjs, s->nobjs + 1, sizeof *s->objs)) return NULL;
        o = calloc(1, size);
        if (o == NULL) return NULL;
        if (!set_insert(o)) {
            free(o);
            return NULL;
        }
        s->objs[s->nobjs++] = o;
    }
    o->magic = MOCK_MAGIC;
    o->kind = kind;
    o->alive = true;
    o->ctx = ctx;
    if (ctx != NULL) {
        mock_obj *head = &ctx->children;
        o->prev = head->prev;
        o->next = head;
        head->prev->next = o;
        head->prev = o;
    }
    return o;
}

void mock__kill(mock_obj *o) {
    if (!o->alive) return;
    switch (o->kind) {
    case CUSHIM_MOCK_CONTEXT: {
        struct CUctx_st *c = (struct CUctx_st *)o;
        mock__ctx_clear(c);
        if (!o->alive) return; /* killed by another thread while this one waited in the drain */
        if (c->active) mock__state.live[CUSHIM_MOCK_CONTEXT]--;
        c->active = false;
        break;
    }
    case CUSHIM_MOCK_STREAM: {
        struct CUstream_st *st = (struct CUstream_st *)o;
        mock__complete(st, st->submitted, 0); /* its work finishes, as on the driver */
        if (!o->alive) return; /* killed by another thread while this one waited in the drain */
        mock__blocking_remove(st);
        if (!st->per_thread) mock__state.live[CUSHIM_MOCK_STREAM]--;
        break;
    }
    case CUSHIM_MOCK_EVENT: mock__state.live[CUSHIM_MOCK_EVENT]--; break;
    /* An unloaded module or library frees its image now (what a kernel still running or
     * queued reads of it is freed after that kernel: mock_image.c); its record and its
     * functions' stay dead in their rings, so that a stale handle is named. */
    case CUSHIM_MOCK_MODULE: {
        struct CUmod_st *m = (struct CUmod_st *)o;
        for (size_t i = 0; i < m->img.nentries && i < m->capfuncs; i++) {
            if (m->funcs[i] && m->funcs[i]->module == m) mock__kill(&m->funcs[i]->h);
        }
        mock__image_vars_dead(&m->img, mock__entry_name());
        mock__image_free(&m->img);
        free(m->funcs);
        m->funcs = NULL;
        m->capfuncs = 0;
        mock__state.live[CUSHIM_MOCK_MODULE]--;
        break;
    }
    case CUSHIM_MOCK_LIBRARY: {
        struct CUlib_st *l = (struct CUlib_st *)o;
        for (size_t i = 0; i < l->img.nentries && i < l->capkernels; i++) {
            if (l->kernels[i] && l->kernels[i]->library == l) mock__kill(&l->kernels[i]->h);
        }
        mock__image_vars_dead(&l->img, mock__entry_name());
        mock__image_free(&l->img);
        free(l->kernels);
        l->kernels = NULL;
        l->capkernels = 0;
        mock__state.live[CUSHIM_MOCK_LIBRARY]--;
        break;
    }
    case MOCK_K_KERNEL: {
        struct CUkern_st *k = (struct CUkern_st *)o;
        for (size_t i = 0; i < k->nfuncs; i++) {
            if (k->funcs[i]->kernel == k) mock__kill(&k->funcs[i]->h);
        }
        free(k->funcs);
        k->funcs = NULL;
        k->nfuncs = k->capfuncs = 0;
        break;
    }
    case CUSHIM_MOCK_GRAPH:
        mock__nodes_free(&((struct CUgraph_st *)o)->nodes);
        mock__graph_user_objects_drop((struct CUgraph_st *)o);
        mock__state.live[CUSHIM_MOCK_GRAPH]--;
        break;
    case CUSHIM_MOCK_GRAPH_EXEC:
        mock__nodes_free(&((struct CUgraphExec_st *)o)->nodes);
        mock__state.live[CUSHIM_MOCK_GRAPH_EXEC]--;
        break;
    default: break;
    }
    unlink_obj(o);
    o->alive = false;
    retire(o);
}

void mock__free_record(mock_obj *o) {
    switch (o->kind) {
    case CUSHIM_MOCK_CONTEXT:
        mock__queue_free(&((struct CUctx_st *)o)->default_stream.q);
        free(((struct CUctx_st *)o)->blocking);
        /* A context freed still live (the mock's reset) keeps its device malloc heap till here. */
        mock__ctx_heap_free((struct CUctx_st *)o);
        break;
    case CUSHIM_MOCK_STREAM: mock__queue_free(&((struct CUstream_st *)o)->q); break;
    case CUSHIM_MOCK_MODULE:
        mock__image_free(&((struct CUmod_st *)o)->img);
        free(((struct CUmod_st *)o)->funcs);
        break;
    case CUSHIM_MOCK_LIBRARY:
        mock__image_free(&((struct CUlib_st *)o)->img);
        free(((struct CUlib_st *)o)->kernels);
        break;
    case MOCK_K_KERNEL: free(((struct CUkern_st *)o)->funcs); break;
    case MOCK_K_ARRAY: mock__array_free_record((struct CUarray_st *)o); break;
    case CUSHIM_MOCK_GRAPH: mock__nodes_free(&((struct CUgraph_st *)o)->nodes); break;
    case CUSHIM_MOCK_GRAPH_EXEC: mock__nodes_free(&((struct CUgraphExec_st *)o)->nodes); break;
    default: break;
    }
    o->magic = 0;
    free(o);
}

/* Frees every record and forgets them all; the thread stacks become void. */
void mock__forget_all(void) {
    mock_state *s = &mock__state;
    for (size_t i = 0; i < s->nobjs; i++) mock__free_record(s->objs[i]);
    free(s->objs);
    free(s->set);
    s->objs = NULL;
    s->set = NULL;
    s->nobjs = s->capobjs = s->setcap = s->setcount = 0;
    forget_dead();
    memset(s->live, 0, sizeof s->live);
    memset(s->primary, 0, sizeof s->primary);
    s->generation++;
}

/* ------------------------------------------------------------------------------------------ */
/* The thread's context stack                                                                 */
/* ------------------------------------------------------------------------------------------ */

static void tl_sync(void) {
    if (tl_generation != mock__state.generation) {
        tl_depth = 0;
        tl_generation = mock__state.generation;
    }
}

struct CUctx_st *mock__current(void) {
    tl_sync();
    return tl_depth > 0 ? tl_stack[tl_depth - 1] : NULL;
}

/* Runs on the exiting thread itself, so it can forget the stack too. */
static void tl_free(void *stack) {
    free(stack);
    tl_stack = NULL;
    tl_depth = tl_cap = 0;
}
static void tl_make_key(void) { pthread_key_create(&tl_key, tl_free); }

bool mock__push(struct CUctx_st *ctx) {
    tl_sync();
    if (tl_depth == tl_cap) {
        if (tl_cap >= MOCK_STACK_DEPTH) return false;
        pthread_once(&tl_once, tl_make_key);
        struct CUctx_st **v = realloc(tl_stack, (tl_cap ? tl_cap * 2 : 16) * sizeof *v);
        if (v == NULL) return false;
        tl_stack = v;
        tl_cap = tl_cap ? tl_cap * 2 : 16;
        pthread_setspecific(tl_key, v);
    }
    tl_stack[tl_depth++] = ctx;
    return true;
}

struct CUctx_st *mock__pop(void) {
    tl_sync();
    return tl_depth > 0 ? tl_stack[--tl_depth] : NULL;
}

/* cuCtxSetCurrent: replaces the top of the stack; NULL pops it. False when out of memory. */
bool mock__replace_top(struct CUctx_st *ctx) {
    tl_sync();
    if (ctx == NULL) {
        if (tl_depth > 0) tl_depth--;
    } else if (tl_depth == 0) {
        return mock__push(ctx);
    } else {
        tl_stack[tl_depth - 1] = ctx;
    }
    return true;
}

CUresult mock__need_current(const char *entry, struct CUctx_st **out) {
    struct CUctx_st *c = mock__current();
    *out = NULL;
    if (c == NULL) return CUDA_ERROR_INVALID_CONTEXT;
    if (mock__expect(c, CUSHIM_MOCK_CONTEXT, entry) == NULL) return CUDA_ERROR_INVALID_CONTEXT;
    if (!c->active) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    *out = c;
    return CUDA_SUCCESS;
}

struct CUctx_st *mock__stream_ctx(const struct CUstream_st *s) {
    return s->h.ctx;
}

/* ------------------------------------------------------------------------------------------ */
/* Launch records                                                                             */
/* ------------------------------------------------------------------------------------------ */

/* The last MOCK_LAUNCH_KEEP records, in a ring of chunks: a pointer from cushim_mock_api.launch
 * stays valid until reset or MOCK_LAUNCH_KEEP more launches. */
cushim_mock_launch *mock__new_launch(void) {
    mock_state *s = &mock__state;
    size_t chunk = s->nlaunches / MOCK_LAUNCH_CHUNK % (MOCK_LAUNCH_KEEP / MOCK_LAUNCH_CHUNK);
    if (chunk >= s->capchunks) {
        if (!grow(&s->launch_chunks, &s->capchunks, chunk + 1, sizeof *s->launch_chunks)) {
            return NULL;
        }
        memset(s->launch_chunks + chunk, 0, (s->capchunks - chunk) * sizeof *s->launch_chunks);
    }
    if (s->launch_chunks[chunk] == NULL) {
        s->launch_chunks[chunk] = calloc(MOCK_LAUNCH_CHUNK, sizeof(cushim_mock_launch));
        if (s->launch_chunks[chunk] == NULL) return NULL;
    }
    cushim_mock_launch *l = &s->launch_chunks[chunk][s->nlaunches % MOCK_LAUNCH_CHUNK];
    memset(l, 0, sizeof *l);
    s->nlaunches++;
    return l;
}

const cushim_mock_launch *mock__launch_at(size_t i) {
    mock_state *s = &mock__state;
    if (i >= s->nlaunches || s->nlaunches - i > MOCK_LAUNCH_KEEP) return NULL;
    size_t chunk = i / MOCK_LAUNCH_CHUNK % (MOCK_LAUNCH_KEEP / MOCK_LAUNCH_CHUNK);
    return &s->launch_chunks[chunk][i % MOCK_LAUNCH_CHUNK];
}

void mock__forget_launches(void) {
    mock_state *s = &mock__state;
    for (size_t i = 0; i < s->capchunks; i++) free(s->launch_chunks[i]);
    free(s->launch_chunks);
    s->launch_chunks = NULL;
    s->capchunks = s->nlaunches = 0;
}

bool mock__grow(void *v, size_t *cap, size_t need, size_t size) { return grow(v, cap, need, size); }

/* ------------------------------------------------------------------------------------------ */
/* The call log                                                                               */
/* ------------------------------------------------------------------------------------------ */

void mock__log_call(const char *name) {
    mock_state *s = &mock__state;
    if (s->log == NULL) s->log = malloc(MOCK_LOG_KEEP * sizeof *s->log);
    if (s->log == NULL) return;
    s->log[s->nlog % MOCK_LOG_KEEP] = name;
    s->nlog++;
}

const char *mock__logged_call(size_t i) {
    mock_state *s = &mock__state;
    if (i >= s->nlog || s->nlog - i > MOCK_LOG_KEEP) return NULL;
    return s->log[i % MOCK_LOG_KEEP];
}
