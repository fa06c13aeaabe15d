/* The tracer: one hook on every entry that writes a line per call (calls), a Chrome trace-event
 * JSON event per call (timeline), or counts for a table at exit (summary); this file starts,
 * stops and configures it, events.c formats, output.c writes the file, kernels.c names kernels.
 *
 * A traced call formats nothing: it appends a record of what it was given and what it wrote to
 * its thread's ring (writer.c), and a background thread formats the lines and events into the
 * thread's buffer (tbuf.c) and writes them in blocks; every thread's at cushim_trace_stop and at
 * exit. Calls to stderr are formatted and written by the calling thread a line at a time
 * instead, so that they interleave with the program's own output. */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hints.h"
#include "loader/diag.h"
#include "loader/loader.h"
#include "trace/capture.h"
#include "trace/clock.h"
#include "trace/entry_info.h"
#include "trace/events.h"
#include "trace/fast.h"
#include "trace/hooks.h"
#include "trace/kernels.h"
#include "trace/output.h"
#include "trace/rt_entry.h"
#include "trace/summary.h"
#include "trace/tbuf.h"
#include "trace/trace.h"
#include "trace/writer.h"

/* What the tracer does: set while no hook of it is installed, read by the hook. */
typedef struct config {
    bool calls, timeline, summary;
    char path[PATH_MAX]; /* "" for the defaults */
} config;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static config cfg;
static bool running; /* under lock */
static unsigned long long hook_id;
static bool calls_to_stderr;
static atomic_bool reopen; /* a forked child: the parent's file is not this process's */
static bool forked_child;
static atomic_bool warn_pending;
static char warning[PATH_MAX + 128];

/* A thread's block of lines or events, written while this run of the tracer owns the file (a
 * forked child's first call opens its own before it formats anything). */
static void sink(const char *p, size_t n) {
    if (!atomic_load(&reopen)) cushim__out_block(p, n);
}

/* The file's name in this process: the timeline's default names the pid; a child forked from a
 * traced process adds its pid to the name it was given, so that it writes a file of its own. */
static void file_name(char *name, size_t cap) {
    if (cfg.path[0] == '\0') {
        snprintf(name, cap, "cushim-trace-%ld.json", (long)getpid());
    } else if (forked_child) {
        snprintf(name, cap, "%s.%ld", cfg.path, (long)getpid());
    } else {
        snprintf(name, cap, "%s", cfg.path);
    }
}

/* Opens the file when the configuration has one; false, with the warning's text, when it
 * cannot be opened. Where the calls go follows. */
static bool open_file_locked(void) {
    bool ok = true;
    if (cfg.timeline || (cfg.calls && cfg.path[0] != '\0') ||
        (cfg.summary && cfg.path[0] != '\0')) {
        char name[PATH_MAX + 32];
        file_name(name, sizeof name);
        ok = cushim__out_open(name, cfg.timeline, warning, sizeof warning);
    }
    calls_to_stderr = cfg.calls && (cfg.timeline || cfg.path[0] == '\0');
    return ok;
}

static void say_warning(void) {
    if (atomic_exchange(&warn_pending, false)) cushim__log(CUSHIM_LOG_WARN, "%s", warning);
}

/* The mock's kernels as they run: the type of cushim_mock_kernel_observer (cushim_mock.h),
 * which the mock calls under its lock on the thread that ran the kernel, after it ran. */
static void kernel_ran(void *user, const char *kernel, const unsigned grid[3],
                       const unsigned block[3], CUstream stream, unsigned long long start_ns,
                       unsigned long long end_ns, unsigned long long thread_instructions) {
    (void)user;
    cushim__kernel *k = cushim__kernels_named(kernel);
    if (k == NULL) return;
    atomic_fetch_add_explicit(&k->runs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&k->run_ns, end_ns - start_ns, memory_order_relaxed);
    atomic_fetch_add_explicit(&k->instructions, thread_instructions, memory_order_relaxed);
    if (cfg.timeline) {
        cushim__writer_kernel(k, grid, block, stream, start_ns, end_ns, thread_instructions);
    }
}

/* The mock's observer, when the driver is the mock and the timeline or the summary wants it;
 * registered in this process (a forked child's copy is the parent's, and its mock unusable). */
static atomic_bool observing;

static void observe(bool on) {
    void *set = cushim__driver_export("cushim_mock_set_kernel_observer");
    if (set == NULL || atomic_exchange(&observing, on) == on) return;
    void (*fn)(void (*)(void *, const char *, const unsigned *, const unsigned *, CUstream,
                        unsigned long long, unsigned long long, unsigned long long),
               void *);
    memcpy(&fn, &set, sizeof fn);
    fn(on ? kernel_ran : NULL, NULL);
}

void cushim__trace_driver_loaded(void) {
    pthread_mutex_lock(&lock);
    bool want = running && (cfg.timeline || cfg.summary);
    pthread_mutex_unlock(&lock);
    if (want) observe(true);
}

/* Opens the child's own file at its first call, once the parent's is closed. */
static void reopen_in_child(void) {
    pthread_mutex_lock(&lock);
    if (atomic_load(&reopen) && running) {
        if (!open_file_locked()) atomic_store(&warn_pending, true);
        atomic_store(&reopen, false);
    }
    pthread_mutex_unlock(&lock);
}

void cushim__trace_settle(void) {
    if (atomic_load_explicit(&reopen, memory_order_relaxed)) reopen_in_child();
    if (atomic_load_explicit(&warn_pending, memory_order_relaxed)) say_warning();
}

bool cushim__trace_calls(bool *to_stderr) {
    *to_stderr = calls_to_stderr;
    return cfg.calls;
}
bool cushim__trace_timeline(void) { return cfg.timeline; }
bool cushim__trace_summary(void) { return cfg.summary; }

static void after_call(const cushim_hook_call *c, void *user) {
    (void)user;
    cushim__trace_settle();
    if (cfg.summary) cushim__summary_count(c);
    /* The kernel of a call that names a function: learnt from the calls that make handles. */
    cushim__kernels_learn(c);
    const cushim__trace_entry *e = &cushim__trace_entries[c->index];
    cushim__kernel *k = NULL;
    if (e->function >= 0 && (unsigned)e->function < c->arg_count) {
        k = cushim__kernels_find(*(void *const *)c->args[e->function]);
        /* Counted for the summary's table only: an atomic add a launch need not pay else. */
        if (cfg.summary && k != NULL && e->launch && c->result == CUDA_SUCCESS) {
            atomic_fetch_add_explicit(&k->launches, 1, memory_order_relaxed);
        }
    }
    unsigned make = (cfg.calls ? CUSHIM__REC_LINE : 0u) | (cfg.timeline ? CUSHIM__REC_SPAN : 0u);
    if (make != 0) cushim__writer_call(c, k, make);
}

static bool parse(const char *what, config *c) {
    memset(c, 0, sizeof *c);
    for (const char *p = what; *p != '\0';) {
        size_t n = strcspn(p, ",");
        if (n == 5 && strncmp(p, "calls", 5) == 0) {
            c->calls = true;
        } else if (n == 8 && strncmp(p, "timeline", 8) == 0) {
            c->timeline = true;
        } else if (n == 7 && strncmp(p, "summary", 7) == 0) {
            c->summary = true;
        } else if (n != 0) {
            return false;
        }
        p += n;
        if (*p == ',') p++;
    }
    return c->calls || c->timeline || c->summary;
}

static unsigned long long warn_id;
static void warn_once(const cushim_hook_call *c, void *user) {
    (void)c;
    (void)user;
    say_warning();
    (void)cushim_hook_remove(warn_id); /* from inside the hook: it does not wait for itself */
}

static void at_exit(void) { (void)cushim_trace_stop(); }

/* The fast path (fast.h), where the hook would only append a record that the writer formats:
 * not for the summary (it counts on the calling thread), nor for lines to stderr (formatted by
 * the calling thread), nor in a forked child (the same); a file that could not be opened has
 * a warning to say at the next call, through the hook. */
static void go_fast(const config *c) {
    static unsigned runs;
    if (c->summary || calls_to_stderr || forked_child) return;
    if (++runs == 0) runs = 1;
    cushim__clock_start();
    atomic_store(&cushim__writer_run, runs);
    unsigned make = (c->calls ? CUSHIM__REC_LINE : 0u) | (c->timeline ? CUSHIM__REC_SPAN : 0u);
    /* A stop on another thread removed the hook meanwhile: no run is left to tag. */
    if (!cushim__hook_set_bypass(hook_id, CUSHIM__FAST_WORD(runs, make)))
        atomic_store(&cushim__writer_run, 0u);
}

/* Starts as asked; on failure returns its code with the sentence in `warning`. */
static CUresult start(const char *what, const char *path) {
    config c;
    if (what == NULL || !parse(what, &c)) {
        snprintf(warning, sizeof warning,
                 "CUSHIM_TRACE=%s names nothing known: give calls, timeline or summary, or a "
                 "comma-separated list of them",
                 what ? what : "(null)");
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (path != NULL && strlen(path) >= sizeof c.path) {
        snprintf(warning, sizeof warning, "CUSHIM_TRACE_FILE is longer than %d bytes", PATH_MAX);
        return CUDA_ERROR_FILE_NOT_FOUND;
    }
    if (path != NULL) snprintf(c.path, sizeof c.path, "%s", path);
    pthread_mutex_lock(&lock);
    if (running) {
        pthread_mutex_unlock(&lock);
        snprintf(warning, sizeof warning, "the tracer runs already: stop it first");
        return CUDA_ERROR_ILLEGAL_STATE;
    }
    cfg = c;
    CUresult r = open_file_locked() ? CUDA_SUCCESS : CUDA_ERROR_FILE_NOT_FOUND;
    atomic_store(&reopen, false);
    cushim__events_reset(cushim__now_ns());
    cushim__summary_reset();
    cushim__kernels_reset();
    cushim__summary_rt_reset();
    cushim__tbuf_set_sink(sink);
    cushim__capture_prepare();
    cushim__writer_config(c.calls, calls_to_stderr, c.timeline);
    (void)cushim__writer_start(); /* without it, records are formatted at the stop */
    running = true;
    atomic_store(&cushim__trace_runtime, 1);
    static bool registered;
    if (!registered) registered = atexit(at_exit) == 0;
    pthread_mutex_unlock(&lock);
    if (c.timeline || c.summary) observe(true); /* a driver loaded already */
    if (!cushim__hook_install(-1, NULL, after_call, NULL, &hook_id)) {
        (void)cushim_trace_stop();
        snprintf(warning, sizeof warning, "the tracer needs a hook, and %d are installed",
                 CUSHIM__MAX_HOOKS);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (r == CUDA_SUCCESS) go_fast(&c);
    return r;
}

CUSHIM_API CUresult cushim_trace_start(const char *what, const char *path) {
    CUresult r = start(what, path);
    if (r != CUDA_SUCCESS) {
        cushim__set_error("cushim_trace_start: %s", warning);
        return r;
    }
    cushim__clear_error();
    return CUDA_SUCCESS;
}

/* The summary's tables: into the file when it is the only thing traced there, else stderr. */
static void summary_out(void) {
    static char table[1 << 18];
    size_t n = cushim__summary_rt_print(table, sizeof table / 4);
    n += cushim__summary_print(table + n, sizeof table / 2 - n);
    n += cushim__kernels_print(table + n, sizeof table - n);
    if (cushim__out_is_open() && !cfg.timeline && !cfg.calls) {
        cushim__out_append(table, n);
    } else {
        cushim__out_write_all(STDERR_FILENO, table, n);
    }
}

CUSHIM_API CUresult cushim_trace_stop(void) {
    pthread_mutex_lock(&lock);
    bool was = running;
    pthread_mutex_unlock(&lock);
    if (!was) return CUDA_SUCCESS;
    /* Runtime calls in flight from now on write nothing; those formatting now are waited for. */
    atomic_store(&cushim__trace_runtime, 0);
    while (atomic_load(&cushim__trace_rt_busy) != 0) sched_yield();
    (void)cushim_hook_remove(hook_id); /* waits for calls in its hook on other threads */
    observe(false);                    /* and for a kernel told to the observer */
    unsigned long dropped = cushim__writer_drain(); /* every record, before the file's tail */
    atomic_store(&cushim__writer_run, 0u); /* a fast call that outlived the hook: left out */
    /* A thread's exit that began before that store may still be formatting such a call into the
     * file; every later exit sees no run and skips the record. */
    cushim__tbuf_wait_exits();
    pthread_mutex_lock(&lock);
    if (running) {
        if (cfg.timeline && !atomic_load(&reopen)) cushim__out_append("\n]\n", 3);
        if (cfg.summary && !atomic_load(&reopen)) summary_out();
        cushim__out_close();
        running = false;
    }
    pthread_mutex_unlock(&lock);
    if (dropped != 0) {
        cushim__log(CUSHIM_LOG_WARN,
                    "the tracer dropped %lu calls: a thread's ring stayed full for a second (the "
                    "trace says where)",
                    dropped);
    }
    cushim__clear_error();
    return CUDA_SUCCESS;
}

_Atomic int cushim__trace_runtime = 2;
atomic_int cushim__trace_rt_busy;

/* Once: a forked child keeps its parent's tracer, with a file of its own. The driver's first
 * fill and the runtime's first traced call may ask at once. */
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static void from_env(void);

void cushim__trace_from_env(void) { (void)pthread_once(&env_once, from_env); }

static void from_env(void) {
    /* secure_getenv: a setuid program must not write a file its caller names. */
    const char *what = secure_getenv("CUSHIM_TRACE");
    int unknown = 2;
    if (what == NULL || what[0] == '\0') {
        atomic_compare_exchange_strong(&cushim__trace_runtime, &unknown, 0);
        return;
    }
    CUresult r = start(what, secure_getenv("CUSHIM_TRACE_FILE"));
    if (r == CUDA_SUCCESS) return;
    atomic_compare_exchange_strong(&cushim__trace_runtime, &unknown, 0);
    /* Said at the next driver call: this runs inside cushim_init, where no log handler may be
     * called. When nothing is traced, a hook of its own says it, once. */
    atomic_store(&warn_pending, true);
    if (r != CUDA_ERROR_FILE_NOT_FOUND)
        (void)cushim__hook_install(-1, NULL, warn_once, NULL, &warn_id);
}

/* The child starts with a fresh lock (what the buffers held is the parent's, which the parent
 * writes), closes its copy of the parent's file and opens its own at its first call. Nothing is
 * taken around the fork: see hooks.c. */
static void after_fork_child(void) {
    pthread_mutex_init(&lock, NULL);
    forked_child = true;
    atomic_store(&observing, false);
    if (running) {
        cushim__out_forget();
        atomic_store(&reopen, true);
        cushim__events_reset(cushim__now_ns());
        cushim__summary_reset();
    }
}
static CUSHIM__CONSTRUCTOR void trace_register_fork(void) {
    pthread_atfork(NULL, NULL, after_fork_child);
}
