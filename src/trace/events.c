/* What a call's record becomes: a line (calls) or a Chrome trace-event JSON event (timeline),
 * formatted by the trace writer (writer.c) into the buffer of the thread that made the call
 * (tbuf.c), under that thread's fmt lock; and on the mock, a span per kernel execution on its
 * stream's track. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "loader/table.h"
#include "trace/events.h"
#include "trace/ids.h"
#include "trace/output.h"
#include "trace/tbuf.h"

/* The stream's flow id: the per-thread default stream is one per thread ("pt" and its id). */
static void put_stream(cushim__text *t, const cushim_hook_call *c, CUstream s, cushim__tbuf *b) {
    uintptr_t v = (uintptr_t)s;
    if (v == (uintptr_t)CU_STREAM_PER_THREAD || (v == 0 && c->per_thread)) {
        CUSHIM__PUT_LIT(t, "pt");
        cushim__put_u64(t, (unsigned long long)cushim__trace_tid(b));
        return;
    }
    cushim__put_hex(t, v == (uintptr_t)CU_STREAM_LEGACY ? 0 : v);
}

/* The stream as one word: the per-thread default stream of each thread apart. */
static uintptr_t stream_key(const cushim_hook_call *c, CUstream s, cushim__tbuf *b) {
    uintptr_t v = (uintptr_t)s;
    if (v == (uintptr_t)CU_STREAM_PER_THREAD || (v == 0 && c->per_thread)) {
        return ((uintptr_t)cushim__trace_tid(b) << 2) | 2;
    }
    return v == (uintptr_t)CU_STREAM_LEGACY ? 0 : v;
}

/* Streams that have a flow already, and those that have a track: a slot, once claimed by a
 * compare-and-swap, keeps its key; a stream seen before costs a load. */
#define FLOWS 1024
#define TRACKS 256
static _Atomic uintptr_t seen[FLOWS], tracks[TRACKS];

/* The slot of key in table (size a power of two), claimed if new (*first then true); the last
 * slot when the table is full, shared. */
static size_t claim(_Atomic uintptr_t *table, size_t size, uintptr_t key, bool *first) {
    key |= 1;
    *first = false;
    size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & (size - 1);
    for (size_t k = 0; k < size; k++, h = (h + 1) & (size - 1)) {
        uintptr_t v = atomic_load_explicit(&table[h], memory_order_relaxed);
        if (v == 0 && atomic_compare_exchange_strong_explicit(
                          &table[h], &v, key, memory_order_relaxed, memory_order_relaxed)) {
            *first = true;
            return h;
        }
        if (v == key) return h;
    }
    return size - 1;
}

static unsigned long long t0; /* the timeline's zero */
/* The length of each entry's name and of its per-thread symbol: no strlen per call. */
static unsigned short name_len[2][CUSHIM_TABLE_ENTRIES];

void cushim__events_reset(unsigned long long zero) {
    t0 = zero;
    for (size_t k = 0; k < FLOWS; k++) atomic_store_explicit(&seen[k], 0, memory_order_relaxed);
    for (size_t k = 0; k < TRACKS; k++) atomic_store_explicit(&tracks[k], 0, memory_order_relaxed);
    if (name_len[0][0] == 0) {
        for (unsigned i = 0; i < CUSHIM_TABLE_ENTRIES; i++) {
            name_len[0][i] = (unsigned short)strlen(cushim__entries[i].name);
            name_len[1][i] = (unsigned short)strlen(cushim__entries[i].ptds_symbol);
        }
    }
}

/* Most calls succeed: their result's name without a search of the table of codes. */
static void put_result(cushim__text *t, CUresult r) {
    if (r == CUDA_SUCCESS) {
        CUSHIM__PUT_LIT(t, "CUDA_SUCCESS");
    } else {
        cushim__put(t, cushim_error_name(r));
    }
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

/* A complete event's "ts" and "dur", in microseconds from the timeline's zero. */
static void put_times(cushim__text *t, unsigned long long start_ns, unsigned long long end_ns) {
    CUSHIM__PUT_LIT(t, "\"ts\":");
    cushim__put_us(t, start_ns > t0 ? start_ns - t0 : 0);
    CUSHIM__PUT_LIT(t, ",\"dur\":");
    cushim__put_us(t, end_ns - start_ns);
}

void cushim__event_timeline(cushim__tbuf *b, const cushim_hook_call *c, const cushim__kernel *k,
                            bool has_stream, CUstream s) {
    cushim__text t = {b->data + b->len, 0, CUSHIM__TBUF_ROOM};
    unsigned long long start = c->start_ns > t0 ? c->start_ns - t0 : 0;
    unsigned long long dur = c->end_ns - c->start_ns;
    CUSHIM__PUT_LIT(&t, ",\n{\"name\":\"");
    put_name(&t, c);
    CUSHIM__PUT_LIT(&t, "\",\"ph\":\"X\",");
    put_times(&t, c->start_ns, c->end_ns);
    cushim__put_ids(&t, b);
    CUSHIM__PUT_LIT(&t, ",\"args\":{");
    cushim__put_args(&t, c, true, k ? k->name : NULL, k ? k->name_len : 0);
    if (c->arg_count) cushim__put_char(&t, ',');
    CUSHIM__PUT_LIT(&t, "\"result\":\"");
    put_result(&t, c->result);
    CUSHIM__PUT_LIT(&t, "\"}}");
    /* A flow through the calls on one stream: Perfetto draws the host-side order per stream. */
    if (has_stream) {
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
        bool first;
        (void)claim(seen, FLOWS, key, &first);
        cushim__put_char(&t, first ? 's' : 't');
        CUSHIM__PUT_LIT(&t, "\",\"ts\":");
        cushim__put_us(&t, start + dur / 2);
        cushim__put_ids(&t, b);
        cushim__put_char(&t, '}');
    }
    if (t.len == t.cap) return; /* cut: better no event than broken JSON */
    b->len += t.len;
}

/* "[cushim TID] ", formatted once per thread after its pid and tid. */
static void put_prefix(cushim__text *t, cushim__tbuf *b) {
    if (b->prefix_len == 0) {
        cushim__text i = {b->prefix, 0, sizeof b->prefix - 1};
        CUSHIM__PUT_LIT(&i, "[cushim ");
        cushim__put_u64(&i, (unsigned long long)cushim__trace_tid(b));
        CUSHIM__PUT_LIT(&i, "] ");
        b->prefix_len = i.len;
    }
    cushim__put_n(t, b->prefix, b->prefix_len);
}

/* The driver lines a runtime call's line has not yet gone before: out now (they wait no more
 * when their room is full, so a long runtime call's line may follow some of them). */
static void nest_flush(cushim__tbuf *b, bool to_stderr) {
    if (b->nest_len == 0) return;
    if (to_stderr) {
        cushim__out_write_all(STDERR_FILENO, b->nest, b->nest_len);
    } else {
        cushim__tbuf_put(b, b->nest, b->nest_len);
    }
    b->nest_len = 0;
}

void cushim__event_line(cushim__tbuf *b, const cushim_hook_call *c, const cushim__kernel *k,
                        bool to_stderr) {
    bool nested = b->nest_depth > 0;
    if (nested && sizeof b->nest - b->nest_len < CUSHIM__TBUF_ROOM) nest_flush(b, to_stderr);
    cushim__text t = {nested ? b->nest + b->nest_len : b->data + b->len, 0, CUSHIM__TBUF_ROOM - 1};
    put_prefix(&t, b);
    if (nested) CUSHIM__PUT_LIT(&t, "  "); /* under the runtime call that made it */
    put_name(&t, c);
    cushim__put_char(&t, '(');
    cushim__put_args(&t, c, false, k ? k->name : NULL, k ? k->name_len : 0);
    CUSHIM__PUT_LIT(&t, ") = ");
    put_result(&t, c->result);
    CUSHIM__PUT_LIT(&t, " (");
    cushim__put_us(&t, c->end_ns - c->start_ns);
    CUSHIM__PUT_LIT(&t, " us)");
    t.p[t.len++] = '\n';
    if (nested) {
        b->nest_len += t.len;
    } else if (to_stderr) {
        cushim__out_write_all(STDERR_FILENO, t.p, t.len); /* the buffer as scratch: nothing kept */
    } else {
        b->len += t.len;
    }
}

void cushim__event_nest(cushim__tbuf *b, bool begin, bool to_stderr) {
    if (begin) {
        b->nest_depth++;
    } else if (b->nest_depth > 0 && --b->nest_depth == 0) {
        nest_flush(b, to_stderr);
    }
}

void cushim__event_nest_drop(void) {
    cushim__tbuf *b = cushim__tbuf_current();
    if (b == NULL) return;
    pthread_mutex_lock(&b->fmt);
    b->nest_depth = 0;
    b->nest_len = 0;
    pthread_mutex_unlock(&b->fmt);
}

void cushim__event_rt_line(cushim__tbuf *b, const cushim__rt_event *e, bool to_stderr) {
    const cushim__trace_rt_entry *en = e->entry;
    cushim__text t = {b->data + b->len, 0, CUSHIM__TBUF_ROOM - 1};
    put_prefix(&t, b);
    cushim__put_n(&t, en->name, en->name_len);
    cushim__put_char(&t, '(');
    cushim__put_arg_list(&t, en->args, en->count, en->enums, e->args, false, e->failed,
                         en->function, e->kernel ? e->kernel->name : NULL,
                         e->kernel ? e->kernel->name_len : 0);
    CUSHIM__PUT_LIT(&t, ") = ");
    cushim__put(&t, e->result);
    CUSHIM__PUT_LIT(&t, " (");
    cushim__put_us(&t, e->end_ns - e->start_ns);
    CUSHIM__PUT_LIT(&t, " us)");
    t.p[t.len++] = '\n';
    if (to_stderr) {
        cushim__out_write_all(STDERR_FILENO, t.p, t.len);
    } else {
        b->len += t.len;
    }
}

void cushim__event_rt_span(cushim__tbuf *b, const cushim__rt_event *e) {
    const cushim__trace_rt_entry *en = e->entry;
    cushim__text t = {b->data + b->len, 0, CUSHIM__TBUF_ROOM};
    CUSHIM__PUT_LIT(&t, ",\n{\"name\":\"");
    cushim__put_n(&t, en->name, en->name_len);
    CUSHIM__PUT_LIT(&t, "\",\"cat\":\"runtime\",\"ph\":\"X\",");
    put_times(&t, e->start_ns, e->end_ns);
    cushim__put_ids(&t, b);
    CUSHIM__PUT_LIT(&t, ",\"args\":{");
    cushim__put_arg_list(&t, en->args, en->count, en->enums, e->args, true, e->failed, en->function,
                         e->kernel ? e->kernel->name : NULL, e->kernel ? e->kernel->name_len : 0);
    if (en->count) cushim__put_char(&t, ',');
    CUSHIM__PUT_LIT(&t, "\"result\":\"");
    cushim__put(&t, e->result);
    CUSHIM__PUT_LIT(&t, "\"}}");
    if (t.len == t.cap) return; /* cut: better no event than broken JSON */
    b->len += t.len;
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
    cushim__put_u64(t, (unsigned long long)cushim__trace_pid());
    CUSHIM__PUT_LIT(t, ",\"tid\":");
    cushim__put_u64(t, track);
}

/* A stream's track for the kernels that ran on it: a thread id of its own in the timeline
 * (far above real ones), named by a metadata event the first time. */
void cushim__event_kernel(cushim__tbuf *b, const cushim__kernel *k, const unsigned grid[3],
                          const unsigned block[3], CUstream stream, unsigned long long start_ns,
                          unsigned long long end_ns, unsigned long long thread_instructions) {
    cushim__text t = {b->data + b->len, 0, CUSHIM__TBUF_ROOM};
    uintptr_t s = (uintptr_t)stream == (uintptr_t)CU_STREAM_LEGACY ? 0 : (uintptr_t)stream;
    bool first;
    unsigned long long track = (1ull << 30) + claim(tracks, TRACKS, s, &first);
    if (first) {
        CUSHIM__PUT_LIT(&t, ",\n{\"name\":\"thread_name\",\"ph\":\"M\"");
        put_track(&t, track);
        CUSHIM__PUT_LIT(&t, ",\"args\":{\"name\":\"stream ");
        cushim__put_hex(&t, s);
        CUSHIM__PUT_LIT(&t, "\"}}");
    }
    CUSHIM__PUT_LIT(&t, ",\n{\"name\":\"");
    cushim__put_n(&t, k->name, k->name_len);
    CUSHIM__PUT_LIT(&t, "\",\"cat\":\"kernel\",\"ph\":\"X\",");
    put_times(&t, start_ns, end_ns);
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
