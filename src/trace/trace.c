/* The tracer: one hook on every entry that writes a line per call (calls), a Chrome trace-event
 * JSON event per call (timeline), or counts for a table at exit (summary).
 *
 * Lines and events are formatted on the calling thread straight into a buffer of its own
 * (tbuf.c), with no lock: a full buffer is written out as one block, and every thread's at
 * cushim_trace_stop and at exit. Calls to stderr are written a line at a time instead, so that
 * they interleave with the program's own output. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/hints.h"
#include "loader/diag.h"
#include "loader/loader.h"
#include "loader/table.h"
#include "trace/format.h"
#include "trace/entry_info.h"
#include "trace/hooks.h"
#include "trace/kernels.h"
#include "trace/summary.h"
#include "trace/tbuf.h"
#include "trace/trace.h"

/* What the tracer does: set while no hook of it is installed, read by the hook. */
typedef struct config {
    bool calls, timeline, summary;
    char path[PATH_MAX]; /* "" for the defaults */
} config;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static config cfg;
static bool running; /* under lock */
static unsigned long long hook_id;
static int file_fd = -1;      /* the file, for the timeline or the calls; -1 when none */
static int calls_fd = -1;     /* stderr, or file_fd */
static atomic_bool reopen;    /* a forked child: the parent's file is not this process's */
static bool first_event;      /* no timeline event written yet: the next block's ",\n" goes */
static unsigned long long t0; /* the timeline's zero */
static char out[4096];        /* the file's head and tail, and the summary */
static size_t out_len;
static bool forked_child;
static atomic_bool warn_pending;
static char warning[PATH_MAX + 128];
static long pid_cache; /* getpid() is a system call; the atfork handler resets this */
/* The length of each entry's name and of its per-thread symbol: no strlen per call. */
static unsigned short name_len[2][CUSHIM_TABLE_ENTRIES];

static long tid(cushim__tbuf *b) {
    if (b->tid == 0) {
        b->tid = (long)syscall(SYS_gettid);
        b->ids_len = b->prefix_len = b->stream_len = 0;
    }
    return b->tid;
}

static long pid(void) {
    long p = __atomic_load_n(&pid_cache, __ATOMIC_RELAXED);
    if (p == 0) {
        p = (long)getpid();
        __atomic_store_n(&pid_cache, p, __ATOMIC_RELAXED);
    }
    return p;
}

/* The event's pid and tid, formatted once per thread (and again in a forked child). */
static void put_ids(cushim__text *t, cushim__tbuf *b) {
    (void)tid(b);
    if (b->ids_len == 0) {
        cushim__text i = {b->ids, 0, sizeof b->ids - 1};
        CUSHIM__PUT_LIT(&i, ",\"pid\":");
        cushim__put_u64(&i, (unsigned long long)pid());
        CUSHIM__PUT_LIT(&i, ",\"tid\":");
        cushim__put_u64(&i, (unsigned long long)tid(b));
        b->ids_len = i.len;
    }
    cushim__put_n(t, b->ids, b->ids_len);
}

/* Most calls succeed: their result's name without a search of the table of codes. */
static void put_result(cushim__text *t, CUresult r) {
    if (r == CUDA_SUCCESS) {
        CUSHIM__PUT_LIT(t, "CUDA_SUCCESS");
    } else {
        cushim__put(t, cushim_error_name(r));
    }
}

static void write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return; /* a full disk loses the trace, not the program */
        p += w;
        n -= (size_t)w;
    }
}

static void flush_locked(void) {
    if (file_fd >= 0 && out_len > 0) write_all(file_fd, out, out_len);
    out_len = 0;
}

static void append_locked(const char *p, size_t n) {
    if (file_fd < 0) return;
    if (out_len + n > sizeof out) flush_locked();
    if (n > sizeof out) {
        write_all(file_fd, p, n);
        return;
    }
    memcpy(out + out_len, p, n);
    out_len += n;
}

/* A thread's block of lines or events, written while this run of the tracer owns the file (a
 * forked child's first call opens its own before it formats anything). The timeline's events
 * each start with ",\n", but the file's first. */
static void sink(const char *p, size_t n) {
    pthread_mutex_lock(&lock);
    if (running && !atomic_load(&reopen) && file_fd >= 0) {
        if (cfg.timeline && first_event && n >= 2) {
            p += 2;
            n -= 2;
        }
        first_event = false;
        flush_locked();
        write_all(file_fd, p, n);
    }
    pthread_mutex_unlock(&lock);
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
 * cannot be opened. */
static bool open_file_locked(void) {
    file_fd = -1;
    first_event = true;
    if (!cfg.timeline && !(cfg.calls && cfg.path[0] != '\0') &&
        !(cfg.summary && cfg.path[0] != '\0')) {
        return true;
    }
    char name[PATH_MAX + 32];
    file_name(name, sizeof name);
    /* O_NONBLOCK: a FIFO that no process reads would block open() for good, and this runs
     * inside cushim_init with every other first caller waiting; ENXIO says so. Writes block as
     * usual once it is open (a reader that stops reading slows the program, as with stderr). */
    file_fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
    if (file_fd < 0) {
        int e = errno;
        snprintf(warning, sizeof warning, "CUSHIM_TRACE: cannot open the trace file %s (%s)", name,
                 e == ENXIO ? "a FIFO that no process reads: nothing is traced" : strerror(e));
        return false;
    }
    int flags = fcntl(file_fd, F_GETFL);
    if (flags >= 0) (void)fcntl(file_fd, F_SETFL, flags & ~O_NONBLOCK);
    if (cfg.timeline) append_locked("[\n", 2);
    return true;
}

static void say_warning(void) {
    if (atomic_exchange(&warn_pending, false)) cushim__log(CUSHIM_LOG_WARN, "%s", warning);
}

/* The stream's flow id: the per-thread default stream is one per thread ("pt" and its id). */
static void put_stream(cushim__text *t, const cushim_hook_call *c, CUstream s, cushim__tbuf *b) {
    uintptr_t v = (uintptr_t)s;
    if (v == (uintptr_t)CU_STREAM_PER_THREAD || (v == 0 && c->per_thread)) {
        CUSHIM__PUT_LIT(t, "pt");
        cushim__put_u64(t, (unsigned long long)tid(b));
        return;
    }
    cushim__put_hex(t, v == (uintptr_t)CU_STREAM_LEGACY ? 0 : v);
}

/* The stream as one word: the per-thread default stream of each thread apart. */
static uintptr_t stream_key(const cushim_hook_call *c, CUstream s, cushim__tbuf *b) {
    uintptr_t v = (uintptr_t)s;
    if (v == (uintptr_t)CU_STREAM_PER_THREAD || (v == 0 && c->per_thread)) {
        return ((uintptr_t)tid(b) << 2) | 2;
    }
    return v == (uintptr_t)CU_STREAM_LEGACY ? 0 : v;
}

/* Streams that have a flow already: a slot, once claimed by a compare-and-swap, keeps its key;
 * a stream seen before costs a load. */
static _Atomic uintptr_t seen[1024];

static void seen_reset(void) {
    for (size_t k = 0; k < 1024; k++) atomic_store_explicit(&seen[k], 0, memory_order_relaxed);
}

/* Whether this is the first call seen on the stream whose id is key (a hash of it). */
static bool first_on_stream(uintptr_t key) {
    key |= 1;
    for (size_t k = 0, h = (key * 0x9e3779b97f4a7c15ull) >> 54; k < 1024; k++, h = (h + 1) & 1023) {
        uintptr_t v = atomic_load_explicit(&seen[h], memory_order_relaxed);
        if (v == 0 && atomic_compare_exchange_strong_explicit(
                          &seen[h], &v, key, memory_order_relaxed, memory_order_relaxed)) {
            return true;
        }
        if (v == key) return false;
    }
    return false;
}

/* The call's name: the per-thread variant by its own (cuLaunchKernel_ptsz), one entry by
 * cuda.h's. */
static void put_name(cushim__text *t, const cushim_hook_call *c) {
    if (c->per_thread && cushim__entries[c->index].ptds_version != 0) {
        cushim__put_n(t, c->symbol, name_len[1][c->index]);
    } else {
        cushim__put_n(t, c->entry, name_len[0][c->index]);
    }
}

static void timeline_event(const cushim_hook_call *c, const cushim__kernel *k) {
    cushim__tbuf *b = cushim__tbuf_mine();
    if (b == NULL) return;
    cushim__text t = {b->data + b->len, 0, CUSHIM__TBUF_ROOM};
    unsigned long long start = c->start_ns > t0 ? c->start_ns - t0 : 0;
    unsigned long long dur = c->end_ns - c->start_ns;
    CUSHIM__PUT_LIT(&t, ",\n{\"name\":\"");
    put_name(&t, c);
    CUSHIM__PUT_LIT(&t, "\",\"ph\":\"X\",\"ts\":");
    cushim__put_us(&t, start);
    CUSHIM__PUT_LIT(&t, ",\"dur\":");
    cushim__put_us(&t, dur);
    put_ids(&t, b);
    CUSHIM__PUT_LIT(&t, ",\"args\":{");
    cushim__put_args(&t, c, true, k ? k->name : NULL, k ? k->name_len : 0);
    if (c->arg_count) cushim__put_char(&t, ',');
    CUSHIM__PUT_LIT(&t, "\"result\":\"");
    put_result(&t, c->result);
    CUSHIM__PUT_LIT(&t, "\"}}");
    /* A flow through the calls on one stream: Perfetto draws the host-side order per stream. */
    CUstream s;
    if (cushim__call_stream(c, &s)) {
        CUSHIM__PUT_LIT(&t, ",\n{\"name\":\"stream\",\"cat\":\"stream\",\"bp\":\"e\",\"id\":\"");
        /* Most calls name the stream the thread's last one did: its id is copied. */
        uintptr_t key = stream_key(c, s, b);
        if (b->stream_len == 0 || b->stream_key != key) {
            cushim__text k = {b->stream, 0, sizeof b->stream};
            put_stream(&k, c, s, b);
            b->stream_key = key;
            b->stream_len = k.len;
        }
        cushim__put_n(&t, b->stream, b->stream_len);
        CUSHIM__PUT_LIT(&t, "\",\"ph\":\"");
        /* The first call on a stream starts its flow ("s"), the later ones step it ("t"). */
        cushim__put_char(&t, first_on_stream(key) ? 's' : 't');
        CUSHIM__PUT_LIT(&t, "\",\"ts\":");
        cushim__put_us(&t, start + dur / 2);
        put_ids(&t, b);
        cushim__put_char(&t, '}');
    }
    if (t.len == t.cap) return; /* cut: better no event than broken JSON */
    b->len += t.len;
}

static void calls_line(const cushim_hook_call *c, const cushim__kernel *k) {
    cushim__tbuf *b = cushim__tbuf_mine();
    if (b == NULL) return;
    cushim__text t = {b->data + b->len, 0, CUSHIM__TBUF_ROOM - 1};
    /* "[cushim TID] ", formatted once per thread after its pid and tid. */
    if (b->prefix_len == 0) {
        cushim__text i = {b->prefix, 0, sizeof b->prefix - 1};
        CUSHIM__PUT_LIT(&i, "[cushim ");
        cushim__put_u64(&i, (unsigned long long)tid(b));
        CUSHIM__PUT_LIT(&i, "] ");
        b->prefix_len = i.len;
    }
    cushim__put_n(&t, b->prefix, b->prefix_len);
    put_name(&t, c);
    cushim__put_char(&t, '(');
    cushim__put_args(&t, c, false, k ? k->name : NULL, k ? k->name_len : 0);
    CUSHIM__PUT_LIT(&t, ") = ");
    put_result(&t, c->result);
    CUSHIM__PUT_LIT(&t, " (");
    cushim__put_us(&t, c->end_ns - c->start_ns);
    CUSHIM__PUT_LIT(&t, " us)");
    t.p[t.len++] = '\n';
    if (calls_fd == STDERR_FILENO) {
        write_all(STDERR_FILENO, t.p, t.len); /* the buffer as scratch: nothing kept */
        return;
    }
    b->len += t.len;
}

/* A stream's track for the kernels that ran on it: a thread id of its own in the timeline
 * (far above real ones), named by a metadata event the first time. */
static _Atomic uintptr_t tracks[256];

static unsigned track_of(uintptr_t key, bool *first) {
    key |= 1;
    *first = false;
    for (size_t k = 0, h = (key * 0x9e3779b97f4a7c15ull) >> 56; k < 256; k++, h = (h + 1) & 255) {
        uintptr_t v = atomic_load_explicit(&tracks[h], memory_order_relaxed);
        if (v == 0 && atomic_compare_exchange_strong_explicit(
                          &tracks[h], &v, key, memory_order_relaxed, memory_order_relaxed)) {
            *first = true;
            return (unsigned)h;
        }
        if (v == key) return (unsigned)h;
    }
    return 255; /* more streams than tracks: the last is shared */
}

static void put_dim3(cushim__text *t, const unsigned d[3]) {
    cushim__put_char(t, '(');
    for (int k = 0; k < 3; k++) {
        if (k > 0) cushim__put_char(t, ',');
        cushim__put_u64(t, d[k]);
    }
    cushim__put_char(t, ')');
}

static void put_track(cushim__text *t, unsigned long long track) {
    CUSHIM__PUT_LIT(t, ",\"pid\":");
    cushim__put_u64(t, (unsigned long long)pid());
    CUSHIM__PUT_LIT(t, ",\"tid\":");
    cushim__put_u64(t, track);
}

/* The mock's kernels as they run: the type of cushim_mock_kernel_observer (cushim_mock.h),
 * which the mock calls under its lock on the thread that ran the kernel, after it ran. */
static void kernel_ran(void *user, const char *kernel, const unsigned grid[3],
                       const unsigned block[3], CUstream stream, unsigned long long start_ns,
                       unsigned long long end_ns, unsigned long long thread_instructions) {
    (void)user;
    cushim__kernel *k = cushim__kernels_named(kernel);
    if (k != NULL) {
        atomic_fetch_add_explicit(&k->runs, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&k->run_ns, end_ns - start_ns, memory_order_relaxed);
        atomic_fetch_add_explicit(&k->instructions, thread_instructions, memory_order_relaxed);
    }
    cushim__tbuf *b = cfg.timeline && k != NULL ? cushim__tbuf_mine() : NULL;
    if (b == NULL) return;
    cushim__text t = {b->data + b->len, 0, CUSHIM__TBUF_ROOM};
    uintptr_t s = (uintptr_t)stream == (uintptr_t)CU_STREAM_LEGACY ? 0 : (uintptr_t)stream;
    bool first;
    unsigned long long track = (1ull << 30) + track_of(s, &first);
    if (first) {
        CUSHIM__PUT_LIT(&t, ",\n{\"name\":\"thread_name\",\"ph\":\"M\"");
        put_track(&t, track);
        CUSHIM__PUT_LIT(&t, ",\"args\":{\"name\":\"stream ");
        cushim__put_hex(&t, s);
        CUSHIM__PUT_LIT(&t, "\"}}");
    }
    CUSHIM__PUT_LIT(&t, ",\n{\"name\":\"");
    cushim__put_n(&t, k->name, k->name_len);
    CUSHIM__PUT_LIT(&t, "\",\"cat\":\"kernel\",\"ph\":\"X\",\"ts\":");
    cushim__put_us(&t, start_ns > t0 ? start_ns - t0 : 0);
    CUSHIM__PUT_LIT(&t, ",\"dur\":");
    cushim__put_us(&t, end_ns - start_ns);
    put_track(&t, track);
    CUSHIM__PUT_LIT(&t, ",\"args\":{\"grid\":\"");
    put_dim3(&t, grid);
    CUSHIM__PUT_LIT(&t, "\",\"block\":\"");
    put_dim3(&t, block);
    CUSHIM__PUT_LIT(&t, "\",\"thread_instructions\":");
    cushim__put_u64(&t, thread_instructions);
    CUSHIM__PUT_LIT(&t, ",\"stream\":\"");
    cushim__put_hex(&t, s);
    CUSHIM__PUT_LIT(&t, "\"}}");
    if (t.len == t.cap) return; /* cut: better no event than broken JSON */
    b->len += t.len;
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
        atomic_store(&reopen, false);
        if (!open_file_locked()) atomic_store(&warn_pending, true);
        if (cfg.calls) calls_fd = cfg.timeline || cfg.path[0] == '\0' ? STDERR_FILENO : file_fd;
    }
    pthread_mutex_unlock(&lock);
}

static void after_call(const cushim_hook_call *c, void *user) {
    (void)user;
    if (atomic_load_explicit(&reopen, memory_order_relaxed)) reopen_in_child();
    if (atomic_load_explicit(&warn_pending, memory_order_relaxed)) say_warning();
    if (cfg.summary) cushim__summary_count(c);
    /* The kernel of a call that names a function: learnt from the calls that make handles. */
    cushim__kernels_learn(c);
    const cushim__trace_entry *e = &cushim__trace_entries[c->index];
    cushim__kernel *k = NULL;
    if (e->function >= 0 && (unsigned)e->function < c->arg_count) {
        k = cushim__kernels_find(*(void *const *)c->args[e->function]);
        if (k != NULL && e->launch && c->result == CUDA_SUCCESS) {
            atomic_fetch_add_explicit(&k->launches, 1, memory_order_relaxed);
        }
    }
    if (cfg.calls) calls_line(c, k);
    if (cfg.timeline) timeline_event(c, k);
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
    CUresult r = CUDA_SUCCESS;
    if (!open_file_locked()) r = CUDA_ERROR_FILE_NOT_FOUND;
    calls_fd = c.calls && (c.timeline || c.path[0] == '\0') ? STDERR_FILENO : file_fd;
    t0 = cushim__now_ns();
    atomic_store(&reopen, false);
    cushim__summary_reset();
    cushim__kernels_reset();
    seen_reset();
    if (name_len[0][0] == 0) {
        for (unsigned i = 0; i < CUSHIM_TABLE_ENTRIES; i++) {
            name_len[0][i] = (unsigned short)strlen(cushim__entries[i].name);
            name_len[1][i] = (unsigned short)strlen(cushim__entries[i].ptds_symbol);
        }
    }
    cushim__tbuf_set_sink(sink);
    running = true;
    for (size_t k = 0; k < 256; k++) atomic_store_explicit(&tracks[k], 0, memory_order_relaxed);
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

CUSHIM_API CUresult cushim_trace_stop(void) {
    pthread_mutex_lock(&lock);
    bool was = running;
    pthread_mutex_unlock(&lock);
    if (!was) return CUDA_SUCCESS;
    (void)cushim_hook_remove(hook_id); /* waits for calls in its hook on other threads */
    observe(false);                    /* and for a kernel told to the observer */
    cushim__tbuf_drain();              /* every thread's lines, before the file's tail */
    pthread_mutex_lock(&lock);
    if (running) {
        if (cfg.timeline && !atomic_load(&reopen)) append_locked("\n]\n", 3);
        if (cfg.summary && !atomic_load(&reopen)) {
            static char table[1 << 17];
            size_t n = cushim__summary_print(table, sizeof table / 2);
            n += cushim__kernels_print(table + n, sizeof table - n);
            if (file_fd >= 0 && !cfg.timeline && !cfg.calls) {
                append_locked(table, n);
            } else {
                write_all(STDERR_FILENO, table, n);
            }
        }
        flush_locked();
        if (file_fd >= 0) close(file_fd);
        file_fd = calls_fd = -1;
        running = false;
    }
    pthread_mutex_unlock(&lock);
    cushim__clear_error();
    return CUDA_SUCCESS;
}

void cushim__trace_from_env(void) {
    static bool tried; /* once: a forked child keeps its parent's tracer, with a file of its own */
    if (tried) return;
    tried = true;
    /* secure_getenv: a setuid program must not write a file its caller names. */
    const char *what = secure_getenv("CUSHIM_TRACE");
    if (what == NULL || what[0] == '\0') return;
    CUresult r = start(what, secure_getenv("CUSHIM_TRACE_FILE"));
    if (r == CUDA_SUCCESS) return;
    /* Said at the next driver call: this runs inside cushim_init, where no log handler may be
     * called. When nothing is traced, a hook of its own says it, once. */
    atomic_store(&warn_pending, true);
    if (r != CUDA_ERROR_FILE_NOT_FOUND)
        (void)cushim__hook_install(-1, NULL, warn_once, NULL, &warn_id);
}

/* The child starts with a fresh lock and an empty buffer (what the buffer held is the parent's,
 * which the parent writes), closes its copy of the parent's file and opens its own at its first
 * call. Nothing is taken around the fork: see hooks.c. */
static void after_fork_child(void) {
    pthread_mutex_init(&lock, NULL);
    forked_child = true;
    atomic_store(&observing, false);
    __atomic_store_n(&pid_cache, 0, __ATOMIC_RELAXED);
    out_len = 0;
    if (running) {
        if (file_fd >= 0) close(file_fd);
        file_fd = -1;
        if (calls_fd != STDERR_FILENO) calls_fd = -1;
        atomic_store(&reopen, true);
        seen_reset();
        cushim__summary_reset();
    }
}
static CUSHIM__CONSTRUCTOR void trace_register_fork(void) {
    pthread_atfork(NULL, NULL, after_fork_child);
}
