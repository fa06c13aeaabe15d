/* User objects: a host pointer and its destructor, counted; a graph may hold references, which
 * it gives back when it is destroyed. The destructor runs when the count reaches 0, on the
 * thread of the call that released the last reference (the driver runs it on a thread of its
 * own; either way it may not call CUDA). A graph's executable does not hold references in the
 * mock, nor does a clone. Also questions about graphs: an executable's flags, a node's
 * counterpart in a clone, and cuGraphDebugDotPrint (the nodes, in the order they run). */
#include <stdio.h>
#include <stdlib.h>

#include "mock.h"

struct CUuserObject_st {
    void *ptr;
    CUhostFn destroy;
    unsigned long long refs;
};

/* Live objects, and the references graphs hold. */
static struct CUuserObject_st **objs;
static size_t nobjs, capobjs;
typedef struct graph_ref {
    struct CUgraph_st *g;
    struct CUuserObject_st *o;
    unsigned long long count;
} graph_ref;
static graph_ref *grefs;
static size_t ngrefs, capgrefs;

static struct CUuserObject_st *expect_obj(CUuserObject h, const char *entry) {
    for (size_t i = 0; i < nobjs; i++) {
        if (objs[i] == h) return h;
    }
    mock__misuse(entry, "user object %p was never made by the mock, or was destroyed", (void *)h);
    return NULL;
}

/* Takes n references off o; at 0 it is destroyed and its destructor runs. */
static void unref(struct CUuserObject_st *o, unsigned long long n) {
    o->refs -= n;
    if (o->refs > 0) return;
    for (size_t i = 0; i < nobjs; i++) {
        if (objs[i] == o) objs[i] = objs[--nobjs];
    }
    o->destroy(o->ptr);
    free(o);
}

CUresult CUDAAPI mock_cuUserObjectCreate(CUuserObject *out, void *ptr, CUhostFn destroy,
                                         unsigned int refs, unsigned int flags) {
    MOCK_ENTER(cuUserObjectCreate);
    if (out == NULL || destroy == NULL || refs == 0 || flags != CU_USER_OBJECT_NO_DESTRUCTOR_SYNC) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    struct CUuserObject_st *o = malloc(sizeof *o);
    if (o == NULL || !mock__grow(&objs, &capobjs, nobjs + 1, sizeof *objs)) {
        free(o);
        return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
    }
    *o = (struct CUuserObject_st){ptr, destroy, refs};
    objs[nobjs++] = o;
    *out = o;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuUserObjectRetain(CUuserObject h, unsigned int count) {
    MOCK_ENTER(cuUserObjectRetain);
    if (count == 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUuserObject_st *o = expect_obj(h, "cuUserObjectRetain");
    if (o == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    o->refs += count;
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuUserObjectRelease(CUuserObject h, unsigned int count) {
    MOCK_ENTER(cuUserObjectRelease);
    if (count == 0) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUuserObject_st *o = expect_obj(h, "cuUserObjectRelease");
    if (o == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    if (count > o->refs) {
        mock__misuse("cuUserObjectRelease",
                     "%u references released of user object %p, which has %llu", count, (void *)h,
                     o->refs);
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    unref(o, count);
    return mock__leave(CUDA_SUCCESS);
}

static graph_ref *ref_of(struct CUgraph_st *g, struct CUuserObject_st *o) {
    for (size_t i = 0; i < ngrefs; i++) {
        if (grefs[i].g == g && grefs[i].o == o) return &grefs[i];
    }
    return NULL;
}

CUresult CUDAAPI mock_cuGraphRetainUserObject(CUgraph hg, CUuserObject h, unsigned int count,
                                              unsigned int flags) {
    MOCK_ENTER(cuGraphRetainUserObject);
    if (count == 0 || (flags & ~(unsigned)CU_GRAPH_USER_OBJECT_MOVE)) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    if (hg == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUgraph_st *g;
    MOCK_EXPECT(g, hg, CUSHIM_MOCK_GRAPH, "cuGraphRetainUserObject");
    struct CUuserObject_st *o = expect_obj(h, "cuGraphRetainUserObject");
    if (o == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    graph_ref *r = ref_of(g, o);
    if (r == NULL) {
        if (!mock__grow(&grefs, &capgrefs, ngrefs + 1, sizeof *grefs)) {
            return mock__leave(CUDA_ERROR_OUT_OF_MEMORY);
        }
        r = &grefs[ngrefs++];
        *r = (graph_ref){g, o, 0};
    }
    r->count += count;
    if (!(flags & CU_GRAPH_USER_OBJECT_MOVE)) o->refs += count; /* moved: the caller's */
    return mock__leave(CUDA_SUCCESS);
}

CUresult CUDAAPI mock_cuGraphReleaseUserObject(CUgraph hg, CUuserObject h, unsigned int count) {
    MOCK_ENTER(cuGraphReleaseUserObject);
    if (count == 0 || hg == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUgraph_st *g;
    MOCK_EXPECT(g, hg, CUSHIM_MOCK_GRAPH, "cuGraphReleaseUserObject");
    struct CUuserObject_st *o = expect_obj(h, "cuGraphReleaseUserObject");
    if (o == NULL) return mock__leave(CUDA_ERROR_INVALID_HANDLE);
    graph_ref *r = ref_of(g, o);
    if (r == NULL || count > r->count) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    r->count -= count;
    if (r->count == 0) *r = grefs[--ngrefs];
    unref(o, count);
    return mock__leave(CUDA_SUCCESS);
}

void mock__graph_user_objects_drop(struct CUgraph_st *g) {
    for (size_t i = ngrefs; i-- > 0;) {
        if (grefs[i].g != g) continue;
        graph_ref r = grefs[i];
        grefs[i] = grefs[--ngrefs];
        unref(r.o, r.count);
    }
}

/* Reset forgets every object without running its destructor (its program is gone). */
void mock__user_objects_reset(void) {
    for (size_t i = 0; i < nobjs; i++) free(objs[i]);
    free(objs);
    free(grefs);
    objs = NULL;
    grefs = NULL;
    nobjs = capobjs = ngrefs = capgrefs = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Questions about graphs                                                                     */
/* ------------------------------------------------------------------------------------------ */

CUresult CUDAAPI mock_cuGraphExecGetFlags(CUgraphExec he, cuuint64_t *flags) {
    MOCK_ENTER(cuGraphExecGetFlags);
    if (he == NULL || flags == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUgraphExec_st *x;
    MOCK_EXPECT(x, he, CUSHIM_MOCK_GRAPH_EXEC, "cuGraphExecGetFlags");
    *flags = x->flags;
    return mock__leave(CUDA_SUCCESS);
}

/* A clone holds its original's nodes in their order, then its own: the node of the clone at
 * the original node's place. */
CUresult CUDAAPI mock_cuGraphNodeFindInClone(CUgraphNode *out, CUgraphNode orig, CUgraph hclone) {
    MOCK_ENTER(cuGraphNodeFindInClone);
    if (out == NULL || orig == NULL || hclone == NULL) {
        return mock__leave(CUDA_ERROR_INVALID_VALUE);
    }
    struct CUgraph_st *c;
    MOCK_EXPECT(c, hclone, CUSHIM_MOCK_GRAPH, "cuGraphNodeFindInClone");
    const struct CUgraph_st *g = c->cloned_from;
    if (g == NULL || !g->h.alive) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < g->nodes.n && i < c->nodes.n; i++) {
        if (g->nodes.v[i] == orig) {
            *out = c->nodes.v[i];
            return mock__leave(CUDA_SUCCESS);
        }
    }
    return mock__leave(CUDA_ERROR_INVALID_VALUE); /* not a node of the original */
}

/* ------------------------------------------------------------------------------------------ */
/* cuGraphDebugDotPrint                                                                       */
/* ------------------------------------------------------------------------------------------ */

static const char *node_kind_name(mock_node_kind k) {
    static const char *const names[] = {
        [MOCK_NODE_KERNEL] = "kernel",
        [MOCK_NODE_MEMCPY] = "memcpy",
        [MOCK_NODE_MEMSET] = "memset",
        [MOCK_NODE_HOST] = "host",
        [MOCK_NODE_EVENT_RECORD] = "event record",
        [MOCK_NODE_WAIT_EVENT] = "event wait",
        [MOCK_NODE_EMPTY] = "empty",
    };
    return (unsigned)k < sizeof names / sizeof *names && names[k] ? names[k] : "node";
}

/* The graph as Graphviz's DOT: one vertex per node, labelled with its kind, and an edge from
 * each node to the next, the order in which the mock runs them. */
CUresult CUDAAPI mock_cuGraphDebugDotPrint(CUgraph hg, const char *path, unsigned int flags) {
    MOCK_ENTER(cuGraphDebugDotPrint);
    (void)flags; /* every flag asks for more detail; the mock has one level */
    if (hg == NULL || path == NULL) return mock__leave(CUDA_ERROR_INVALID_VALUE);
    struct CUgraph_st *g;
    MOCK_EXPECT(g, hg, CUSHIM_MOCK_GRAPH, "cuGraphDebugDotPrint");
    FILE *f = fopen(path, "we");
    if (f == NULL) {
        mock__why("cannot write %s", path);
        return mock__leave(CUDA_ERROR_OPERATING_SYSTEM);
    }
    fprintf(f, "digraph cushim_mock_graph {\n");
    for (size_t i = 0; i < g->nodes.n; i++) {
        fprintf(f, "  n%zu [label=\"%zu: %s\"];\n", i, i, node_kind_name(g->nodes.v[i]->kind));
        if (i > 0) fprintf(f, "  n%zu -> n%zu;\n", i - 1, i);
    }
    fprintf(f, "}\n");
    bool ok = fclose(f) == 0;
    return mock__leave(ok ? CUDA_SUCCESS : CUDA_ERROR_OPERATING_SYSTEM);
}
