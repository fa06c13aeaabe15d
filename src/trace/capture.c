/* What each traced event puts in its record of the calling thread's ring (writer.c): a driver
 * call (a word per argument when every argument is one, else the copies record.c makes), a
 * runtime call, a runtime call's beginning and a kernel that ran on the mock. Nothing here
 * formats: the writer does, from the record alone. */
#include <pthread.h>
#include <string.h>

#include "loader/table.h"
#include "trace/capture.h"
#include "trace/entry_info.h"
#include "trace/format.h"
#include "trace/writer.h"

/* Per entry: every argument one word (cushim__rec_all_scalar), found once. */
static bool dense[CUSHIM_TABLE_ENTRIES];
static pthread_once_t dense_once = PTHREAD_ONCE_INIT;

static void find_dense(void) {
    for (unsigned i = 0; i < CUSHIM_TABLE_ENTRIES; i++) {
        dense[i] =
            cushim__rec_all_scalar(cushim__trace_entries[i].args, cushim__trace_entries[i].count);
    }
}

void cushim__capture_prepare(void) { (void)pthread_once(&dense_once, find_dense); }

void cushim__writer_call(const cushim_hook_call *c, const cushim__kernel *k, unsigned make) {
    cushim__tbuf *b = cushim__tbuf_mine();
    cushim__rec *r = b != NULL ? cushim__ring_reserve(b) : NULL;
    if (r == NULL) return;
    const cushim__trace_entry *e = &cushim__trace_entries[c->index];
    r->kind = CUSHIM__REC_CALL;
    r->make = (unsigned char)make;
    r->per_thread = c->per_thread;
    r->index = (unsigned short)c->index;
    r->result = c->result;
    r->start_ns = c->start_ns;
    r->end_ns = c->end_ns;
    r->kernel = k;
    /* The stream now: a launch's may be in the caller's CUlaunchConfig, gone after the call. */
    CUstream s = NULL;
    r->has_stream = (make & CUSHIM__REC_SPAN) && cushim__call_stream(c, &s);
    r->stream = (uintptr_t)s;
    unsigned n = e->count < c->arg_count ? e->count : c->arg_count;
    if (dense[c->index]) {
        cushim__rec_capture_dense(r, e->args, n, c->args, c->result != CUDA_SUCCESS);
        cushim__ring_commit(b, r, CUSHIM__REC_HEAD + 8 * (size_t)n);
    } else {
        cushim__rec_capture(r, e->args, n, c->args, c->result != CUDA_SUCCESS);
        cushim__ring_commit(b, r, cushim__rec_bytes(r));
    }
}

void cushim__writer_rt(const cushim__rt_event *ev, unsigned make) {
    cushim__tbuf *b = cushim__tbuf_mine();
    cushim__rec *r = b != NULL ? cushim__ring_reserve(b) : NULL;
    if (r == NULL) return;
    r->kind = CUSHIM__REC_RT;
    r->make = (unsigned char)make;
    r->u.rt.rt = ev->entry;
    r->u.rt.result = ev->result;
    r->kernel = ev->kernel;
    r->start_ns = ev->start_ns;
    r->end_ns = ev->end_ns;
    cushim__rec_capture(r, ev->entry->args, ev->entry->count, ev->args, ev->failed);
    cushim__ring_commit(b, r, cushim__rec_bytes(r));
}

void cushim__writer_nest_begin(void) {
    cushim__tbuf *b = cushim__tbuf_mine();
    cushim__rec *r = b != NULL ? cushim__ring_reserve(b) : NULL;
    if (r == NULL) return;
    r->kind = CUSHIM__REC_NEST_BEGIN;
    cushim__ring_commit(b, r, cushim__rec_bytes(r));
}

void cushim__writer_kernel(const cushim__kernel *k, const unsigned grid[3], const unsigned block[3],
                           CUstream stream, unsigned long long start_ns, unsigned long long end_ns,
                           unsigned long long thread_instructions) {
    cushim__tbuf *b = cushim__tbuf_mine();
    cushim__rec *r = b != NULL ? cushim__ring_reserve(b) : NULL;
    if (r == NULL) return;
    r->kind = CUSHIM__REC_KERNEL;
    r->kernel = k;
    memcpy(r->u.k.grid, grid, sizeof r->u.k.grid);
    memcpy(r->u.k.block, block, sizeof r->u.k.block);
    r->stream = (uintptr_t)stream;
    r->start_ns = start_ns;
    r->end_ns = end_ns;
    r->u.k.instructions = thread_instructions;
    cushim__ring_commit(b, r, cushim__rec_bytes(r));
}
