/* Internal to the mock driver: stream order.
 *
 * Each stream holds a queue of operations. Work enters it at the call (a launch, a host
 * function, an async copy) and runs when the stream is drained: by a synchronize of the
 * stream, of its context or of an event recorded after it, by a stream destroy, or at once
 * when set_pending(false). A wait on an event is an operation too: draining past it first
 * drains the stream the event was recorded in, up to that record. A stream that is capturing
 * records the work as nodes of its capture's graph instead; launching the graph's executable
 * puts the nodes' work into the launch stream's queue, in capture order.
 *
 * THE HOOK for work of other parts of the mock (async copies and sets):
 *
 *     CUresult mock__enqueue(struct CUstream_st *s, mock_node_kind kind,
 *                            void (*run)(void *arg), void *arg, void (*drop)(void *arg));
 *
 * Called with the lock held, with s from mock__stream(). run(arg) runs at the work's place in
 * stream order, with the lock held (it may run more than once: once per launch of a graph
 * that captured it, so it must not consume arg). drop(arg) (may be NULL) is called exactly
 * once, when no queue or graph holds the work any more, also when mock__enqueue fails. kind
 * is the graph node kind the work becomes when captured (MOCK_NODE_MEMCPY, MOCK_NODE_MEMSET).
 * Returns CUDA_SUCCESS, or the capture's error (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED).
 */
#ifndef CUSHIM_MOCK_QUEUE_H
#define CUSHIM_MOCK_QUEUE_H

#include <cuda.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "cushim_mock.h"
#include "mock_image.h"

struct CUstream_st;
struct CUevent_st;
struct CUctx_st;

typedef enum mock_node_kind {
    MOCK_NODE_KERNEL,
    MOCK_NODE_MEMCPY,
    MOCK_NODE_MEMSET,
    MOCK_NODE_HOST,
    MOCK_NODE_EVENT_RECORD, /* cuEventRecordWithFlags(CU_EVENT_RECORD_EXTERNAL) in a capture */
    MOCK_NODE_WAIT_EVENT,   /* a wait on an event from outside the capture */
    MOCK_NODE_EMPTY,
} mock_node_kind;

/* A piece of work, shared by the queues and graphs that hold it. */
typedef struct mock_work {
    int refs;
    mock_node_kind kind;
    void (*run)(void *arg);
    void *arg;
    void (*drop)(void *arg);
} mock_work;

typedef enum mock_op_type { MOCK_OP_WORK, MOCK_OP_WAIT } mock_op_type;

typedef struct mock_op {
    mock_op_type type;
    unsigned long long seq;     /* the stream's count of submitted work at this op */
    mock_work *work;            /* MOCK_OP_WORK; NULL for a marker (a record, an old-style item) */
    struct CUstream_st *stream; /* MOCK_OP_WAIT: drain this stream ... */
    unsigned long long upto;    /* ... up to this seq first */
} mock_op;

typedef struct mock_queue {
    mock_op *v;
    size_t head, n, cap;
} mock_queue;

/* A graph node. Handles to nodes are pointers to these; they live as long as their graph. */
struct CUgraphNode_st {
    mock_node_kind kind;
    mock_work *work;          /* kernel, copy, set, host function; NULL for event nodes */
    struct CUevent_st *event; /* event record and wait nodes */
    /* A kernel node added by hand: its parameters as added, owned (mock_graph_build.c). */
    CUDA_KERNEL_NODE_PARAMS *kernel;
};

typedef struct mock_nodes {
    struct CUgraphNode_st **v;
    size_t n, cap;
} mock_nodes;

/* One stream capture sequence, shared by the streams that joined it. */
typedef struct mock_capture {
    unsigned long long id;
    struct CUgraph_st *graph;
    struct CUstream_st *origin;
    CUstreamCaptureMode mode;
    pthread_t thread;
    bool invalidated;
    struct CUstream_st **members;
    size_t nmembers, capmembers;
} mock_capture;

/* The hook (see above). */
CUresult mock__enqueue(struct CUstream_st *s, mock_node_kind kind, void (*run)(void *arg),
                       void *arg, void (*drop)(void *arg));

/* Work refcounts. */
mock_work *mock__work_new(mock_node_kind kind, void (*run)(void *), void *arg,
                          void (*drop)(void *));
void mock__work_unref(mock_work *w);

/* Puts one node's worth of work on s: into its capture's graph, or its queue. Takes a
 * reference to w (NULL for event nodes). */
CUresult mock__submit_node(struct CUstream_st *s, mock_node_kind kind, mock_work *w,
                           struct CUevent_st *e);
/* An event recorded in s, outside capture (mock_stream.c); a wait of s on an event. */
void mock__event_record_in(struct CUevent_st *e, struct CUstream_st *s);
CUresult mock__event_wait_in(struct CUstream_st *s, struct CUevent_st *e);
/* A wait of s on work of another stream, in s's queue. */
bool mock__push_wait(struct CUstream_st *s, struct CUstream_st *on, unsigned long long upto);
/* Frees a queue's operations without running them (reset, record free). */
void mock__queue_free(mock_queue *q);

/* Capture (mock_capture.c). */
bool mock__capture_append(mock_capture *c, struct CUstream_st *s, mock_node_kind kind, mock_work *w,
                          struct CUevent_st *e);
/* A capture of ctx that a synchronize of ctx would break (NULL for none). */
bool mock__capture_blocks_ctx_sync(struct CUctx_st *ctx);
/* Marks s's capture invalid (an illegal call was made on it). */
void mock__capture_invalidate(struct CUstream_st *s);
/* The stream leaves its capture (destroy). */
void mock__capture_leave(struct CUstream_st *s);
/* Whether e was last recorded in a capture that is still going on. */
bool mock__event_captured(const struct CUevent_st *e);
/* cuEventRecord and cuStreamWaitEvent on a capturing stream (or on a captured event). */
CUresult mock__capture_record(struct CUstream_st *s, struct CUevent_st *e, unsigned flags);
CUresult mock__capture_wait(struct CUstream_st *s, struct CUevent_st *e, unsigned flags);

/* Graphs (mock_graph.c). */
void mock__nodes_free(mock_nodes *n);
bool mock__nodes_add(mock_nodes *n, mock_node_kind kind, mock_work *w, struct CUevent_st *e);

/* A launch, checked by mock_launch.c, for mock_kernels.c. */
typedef struct mock_launch_in {
    unsigned grid[3], block[3];
    unsigned smem;
    CUstream stream; /* as the program passed it */
    bool cooperative;
    const CUlaunchAttribute *attrs;
    unsigned nattrs;
    void **params, **extra;
} mock_launch_in;

/* Records the launch (outside capture) and queues the kernel's run on s, with its parameters
 * copied as the driver copies them. */
CUresult mock__kernel_submit(const mock_kentry *ke, struct mock_image *img, struct CUstream_st *s,
                             const mock_launch_in *in);

/* Host kernels (mock_kernels.c): a launch record for a kernel node replayed by a graph; the
 * registry's state at reset. */
void mock__kernel_record_replay(void *arg, struct CUstream_st *s);
void mock__kernels_reset(void);
/* The control API's register_kernel (fn NULL: unregistered) and host_kernel_runs. */
void mock__register_kernel(const char *name, cushim_mock_kernel_fn fn);
int mock__kernel_runs(const char *name);
/* Whether path is worth handing to dlopen (mock_libcheck.c): an absolute path to a regular,
 * readable, 64-bit ELF file whose loaded segments lie inside it. False with the reason in why. */
bool mock__library_file_ok(const char *path, char *why, size_t len);

#endif
