/* The hook registry: installing and removing hooks while other threads call, and the dispatch
 * that the generated wrappers run around each call.
 *
 * A record's state word says, in one atomic load, whether it is installed, which entry it covers
 * and which functions it has; its generation changes with each reuse. A wrapper reads a record's
 * functions only after counting itself in the record's in-flight count and seeing the same state
 * again; remove clears the state, then waits for that count to fall to zero before the record
 * can be reused. So a hook never runs after cushim_hook_remove returned. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "common/hints.h"
#include "loader/diag.h"
#include "loader/fork.h"
#include "loader/table.h"
#include "trace/hooks.h"
#include "trace/slots.h"

#define ACTIVE 1ull
#define HAS_BEFORE 2ull
#define HAS_AFTER 4ull
#define ENTRY_SHIFT 3 /* entry + 1, 0 for every entry */
#define ENTRY_MASK 0xffffull
#define GEN_SHIFT 19

typedef struct record {
    _Atomic unsigned long long state;
    atomic_int inflight;
    _Atomic(cushim_hook_fn) before, after;
    _Atomic(void *) user;
    bool busy;                 /* under lock: installed, or being removed */
    unsigned long long bypass; /* under lock */
} record;

_Atomic unsigned long long cushim__hook_bypass;

static record records[CUSHIM__MAX_HOOKS];
static atomic_uint used; /* records[0..used) may be installed */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* A bypass waits while a call is still inside a hook no longer installed (one that removed
 * itself, or one removed while another thread ran it): a driver call made there must not be
 * traced (cushim__hooks_before), and the wrappers' fast path would trace it. Put in by the
 * remove once those calls have left, or by a later call through the registry. */
static atomic_bool bypass_waits;
static void refresh_locked(void);
/* This thread's place in the hooks: one thread-local object, found once per call (a shared
 * library's thread-local variable costs a call to find). */
typedef struct where {
    int depth;  /* > 0 inside a hook on this thread */
    int inside; /* the record whose function this thread runs, or -1 */
} where;
static _Thread_local where here = {0, -1};

unsigned long long cushim__now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static bool covers(unsigned long long s, unsigned index) {
    unsigned e = (unsigned)((s >> ENTRY_SHIFT) & ENTRY_MASK);
    return (s & ACTIVE) && (e == 0 || e == index + 1);
}

/* Calls one of a record's functions if the record is still in state s. */
static void call_if(where *w, record *r, unsigned long long s, bool before,
                    const cushim_hook_call *c) {
    atomic_fetch_add(&r->inflight, 1);
    if (atomic_load(&r->state) == s) {
        cushim_hook_fn fn =
            atomic_load_explicit(before ? &r->before : &r->after, memory_order_relaxed);
        w->inside = (int)(r - records);
        fn(c, atomic_load_explicit(&r->user, memory_order_relaxed));
        w->inside = -1;
    }
    atomic_fetch_sub(&r->inflight, 1);
}

bool cushim__hooks_before(cushim__hook_frame *f, unsigned index, int per_thread, void **args,
                          unsigned count) {
    where *w = &here;
    if (w->depth > 0) return false;
    /* Tried, not waited for: the lock is not this path's to wait on. */
    if (CUSHIM__UNLIKELY(atomic_load_explicit(&bypass_waits, memory_order_relaxed)) &&
        pthread_mutex_trylock(&lock) == 0) {
        if (atomic_load(&bypass_waits)) refresh_locked();
        pthread_mutex_unlock(&lock);
    }
    const cushim__entry *e = &cushim__entries[index];
    f->call.entry = e->name;
    f->call.symbol = per_thread ? e->ptds_symbol : e->symbol;
    f->call.index = index;
    f->call.per_thread = per_thread != 0;
    f->call.arg_count = count;
    f->call.args = args;
    f->call.result = CUDA_SUCCESS;
    f->call.end_ns = 0;
    f->ran = 0;
    unsigned n = atomic_load_explicit(&used, memory_order_acquire);
    w->depth++;
    for (unsigned k = 0; k < n; k++) {
        unsigned long long s = atomic_load(&records[k].state);
        if (!covers(s, index)) continue;
        f->ran |= 1ull << k;
        f->seen[k] = s;
        if (s & HAS_BEFORE) {
            f->call.start_ns = cushim__now_ns();
            call_if(w, &records[k], s, true, &f->call);
        }
    }
    w->depth--;
    /* Taken last, so that the before hooks' own time is not the call's. */
    f->call.start_ns = cushim__now_ns();
    return true;
}

void cushim__hooks_after(cushim__hook_frame *f, CUresult r) {
    f->call.end_ns = cushim__now_ns();
    f->call.result = r;
    where *w = &here;
    w->depth++;
    for (unsigned long long ran = f->ran; ran != 0; ran &= ran - 1) {
        unsigned k = (unsigned)__builtin_ctzll(ran);
        if (f->seen[k] & HAS_AFTER) call_if(w, &records[k], f->seen[k], false, &f->call);
    }
    w->depth--;
}

static int find_entry(const char *name) {
    for (unsigned i = 0; i < CUSHIM_TABLE_ENTRIES; i++) {
        const cushim__entry *e = &cushim__entries[i];
        if (strcmp(e->name, name) == 0 || strcmp(e->symbol, name) == 0 ||
            strcmp(e->ptds_symbol, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* Which entries some installed hook covers: what the slot layer puts wrappers in. */
static void covered(bool out[CUSHIM_TABLE_ENTRIES]) {
    memset(out, 0, sizeof(bool) * CUSHIM_TABLE_ENTRIES);
    for (unsigned k = 0; k < CUSHIM__MAX_HOOKS; k++) {
        unsigned long long s = atomic_load_explicit(&records[k].state, memory_order_relaxed);
        if (!(s & ACTIVE)) continue;
        unsigned e = (unsigned)((s >> ENTRY_SHIFT) & ENTRY_MASK);
        if (e == 0) {
            memset(out, 1, sizeof(bool) * CUSHIM_TABLE_ENTRIES);
            return;
        }
        out[e - 1] = true;
    }
}

/* The bypass word: the only installed record's, else none. */
static unsigned long long bypass_locked(void) {
    unsigned long long word = 0;
    unsigned active = 0;
    for (unsigned k = 0; k < CUSHIM__MAX_HOOKS; k++) {
        unsigned long long s = atomic_load_explicit(&records[k].state, memory_order_relaxed);
        if (!(s & ACTIVE)) continue;
        active++;
        word = records[k].bypass;
    }
    return active == 1 ? word : 0;
}

static bool draining_locked(void) {
    unsigned n = atomic_load(&used);
    for (unsigned k = 0; k < n; k++) {
        if (!(atomic_load(&records[k].state) & ACTIVE) && atomic_load(&records[k].inflight) != 0)
            return true;
    }
    return false;
}

static void refresh_locked(void) {
    static bool want[CUSHIM_TABLE_ENTRIES]; /* under lock */
    covered(want);
    /* Off before another hook's wrappers go in, on after the bypassing one's are. */
    unsigned long long word = bypass_locked();
    bool waits = word != 0 && draining_locked();
    if (waits) word = 0;
    atomic_store(&bypass_waits, waits);
    if (word == 0) atomic_store(&cushim__hook_bypass, 0);
    cushim__slots_set(want);
    if (word != 0) atomic_store(&cushim__hook_bypass, word);
}

bool cushim__hook_set_bypass(unsigned long long id, unsigned long long word) {
    unsigned k = (unsigned)(id % CUSHIM__MAX_HOOKS);
    pthread_mutex_lock(&lock);
    unsigned long long s = atomic_load(&records[k].state);
    bool ok = (s & ACTIVE) && (s >> GEN_SHIFT) == id / CUSHIM__MAX_HOOKS;
    if (ok) {
        records[k].bypass = word;
        refresh_locked();
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

void cushim__hooks_tables_changed(bool filled) {
    if (!filled && cushim__forked) {
        /* A child forked after the driver was loaded: its lazy stubs answer every call with
         * CUDA_ERROR_NOT_INITIALIZED and never load a driver again (the reinit is refused
         * there), so they are the functions to wrap, and the child's calls are traced too. The
         * child is one thread, and the registry's lock a fresh one (below). */
        pthread_mutex_lock(&lock);
        cushim__slots_forked();
        refresh_locked();
        pthread_mutex_unlock(&lock);
        return;
    }
    if (!filled) {
        /* The lazy stubs are back (a forked child, or a test's reinit): alone, and maybe in a
         * child whose registry lock was another thread's, so no lock here. */
        cushim__slots_reset();
        return;
    }
    pthread_mutex_lock(&lock);
    cushim__slots_filled();
    refresh_locked();
    pthread_mutex_unlock(&lock);
}

CUSHIM_API CUresult cushim_hook_add(const char *entry, cushim_hook_fn before, cushim_hook_fn after,
                                    void *user, unsigned long long *id) {
    if (id == NULL || (before == NULL && after == NULL)) {
        cushim__set_error("cushim_hook_add: %s", id == NULL ? "id is NULL" : "no function given");
        return CUDA_ERROR_INVALID_VALUE;
    }
    int index = entry ? find_entry(entry) : -1;
    if (entry != NULL && index < 0) {
        cushim__set_error("cushim_hook_add: cuda.h declares no entry %s", entry);
        return CUDA_ERROR_NOT_FOUND;
    }
    if (!cushim__hook_install(index, before, after, user, id)) {
        cushim__set_error("cushim_hook_add: %d hooks are installed already", CUSHIM__MAX_HOOKS);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    cushim__clear_error();
    return CUDA_SUCCESS;
}

bool cushim__hook_install(int index, cushim_hook_fn before, cushim_hook_fn after, void *user,
                          unsigned long long *id) {
    pthread_mutex_lock(&lock);
    unsigned k = 0;
    while (k < CUSHIM__MAX_HOOKS && records[k].busy) k++;
    if (k == CUSHIM__MAX_HOOKS) {
        pthread_mutex_unlock(&lock);
        return false;
    }
    record *r = &records[k];
    unsigned long long gen = (atomic_load(&r->state) >> GEN_SHIFT) + 1;
    atomic_store_explicit(&r->before, before, memory_order_relaxed);
    atomic_store_explicit(&r->after, after, memory_order_relaxed);
    atomic_store_explicit(&r->user, user, memory_order_relaxed);
    r->busy = true;
    r->bypass = 0;
    atomic_store(&r->state, gen << GEN_SHIFT | (unsigned long long)(index + 1) << ENTRY_SHIFT |
                                (before ? HAS_BEFORE : 0) | (after ? HAS_AFTER : 0) | ACTIVE);
    if (k + 1 > atomic_load(&used)) atomic_store_explicit(&used, k + 1, memory_order_release);
    refresh_locked();
    pthread_mutex_unlock(&lock);
    *id = gen * CUSHIM__MAX_HOOKS + k;
    return true;
}

CUSHIM_API CUresult cushim_hook_remove(unsigned long long id) {
    unsigned k = (unsigned)(id % CUSHIM__MAX_HOOKS);
    unsigned long long gen = id / CUSHIM__MAX_HOOKS;
    record *r = &records[k];
    pthread_mutex_lock(&lock);
    unsigned long long s = atomic_load(&r->state);
    if (!(s & ACTIVE) || (s >> GEN_SHIFT) != gen) {
        pthread_mutex_unlock(&lock);
        cushim__set_error("cushim_hook_remove: %llu is not an installed hook", id);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    atomic_store(&r->state, gen << GEN_SHIFT);
    refresh_locked();
    pthread_mutex_unlock(&lock);
    /* Outside the lock: a hook running now may itself add or remove hooks. From inside a hook,
     * this thread's own call of it would never end, so nothing is waited for. */
    while (here.depth == 0 && atomic_load(&r->inflight) != 0) sched_yield();
    pthread_mutex_lock(&lock);
    r->busy = false;
    if (atomic_load(&bypass_waits)) refresh_locked();
    pthread_mutex_unlock(&lock);
    cushim__clear_error();
    return CUDA_SUCCESS;
}

/* A fork while another thread holds the lock would leave the child's copy locked for good, so
 * the child starts with a fresh one. (Not taken around the fork: the loader's and the log's
 * locks are taken while this one is held, and holding it across fork() would order them the
 * other way too.) An add or a remove in flight on another thread is then lost in the child. */
static void after_fork_child(void) {
    pthread_mutex_init(&lock, NULL);
    /* The counts of calls in hooks on threads the child does not have would make a remove in
     * the child (the tracer's at exit) wait for good: only this thread's own call is left. */
    for (int k = 0; k < CUSHIM__MAX_HOOKS; k++) {
        atomic_store(&records[k].inflight, k == here.inside);
        records[k].bypass = 0; /* the child's calls go through the registry (the tracer's file) */
    }
    atomic_store(&cushim__hook_bypass, 0);
    atomic_store(&bypass_waits, false);
}
static CUSHIM__CONSTRUCTOR void hooks_register_fork(void) {
    pthread_atfork(NULL, NULL, after_fork_child);
}
