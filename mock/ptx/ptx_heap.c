/* Calls that the module does not define a body for: device-side malloc and free (CUDA C++
 * Programming Guide, "Dynamic Global Memory Allocation and Operations"; nvcc declares them as
 * `.extern .func malloc` and `free`), against the context's heap that the driver hands the launch
 * (its size CU_LIMIT_MALLOC_HEAP_SIZE), and the callee of an indirect call (PTX ISA "Control
 * Flow Instructions: call" through a register, with a prototype; lanes that hold another
 * function than the first lane's call it from a path of their own, which ptx_exec.c splits off
 * in the caller's frame).
 *
 * The heap is one zeroed block with a first-fit list of chunks: each starts with a 16-byte
 * header (its size with the header, and whether it is in use), so that every pointer malloc
 * returns is 16-byte aligned. Blocks of a launch run on several host threads: a mutex guards the
 * list. Exhausted, malloc returns NULL, as on the GPU; a free of what malloc did not return is
 * a fault that says so. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_check.h"
#include "ptx_run.h"

struct mock_ptx_heap {
    pthread_mutex_t lock;
    unsigned char *base;
    size_t size;
};

typedef struct chunk {
    uint64_t size; /* with this header */
    uint64_t used;
} chunk;

mock_ptx_heap *mock__ptx_heap_new(size_t bytes) {
    bytes = bytes / 16 * 16;
    if (bytes < 64) bytes = 64;
    mock_ptx_heap *h = calloc(1, sizeof *h);
    if (h == NULL) return NULL;
    h->base = calloc(1, bytes);
    if (h->base == NULL || pthread_mutex_init(&h->lock, NULL) != 0) {
        free(h->base);
        free(h);
        return NULL;
    }
    h->size = bytes;
    chunk first = {bytes, 0};
    memcpy(h->base, &first, sizeof first);
    return h;
}

void mock__ptx_heap_delete(mock_ptx_heap *h) {
    if (h == NULL) return;
    pthread_mutex_destroy(&h->lock);
    free(h->base);
    free(h);
}

size_t mock__ptx_heap_size(const mock_ptx_heap *h) { return h != NULL ? h->size : 0; }

bool mock__ptx_heap_in_use(mock_ptx_heap *h) {
    bool used = false;
    pthread_mutex_lock(&h->lock);
    for (size_t off = 0; off < h->size && !used; off += ((chunk *)(void *)(h->base + off))->size)
        used = ((chunk *)(void *)(h->base + off))->used != 0;
    pthread_mutex_unlock(&h->lock);
    return used;
}

void ptx__heap_range(const mock_ptx_heap *h, uintptr_t *lo, size_t *size) {
    *lo = (uintptr_t)h->base;
    *size = h->size;
}

static chunk *at(mock_ptx_heap *h, size_t off) { return (chunk *)(void *)(h->base + off); }

static uint64_t heap_malloc(mock_ptx_heap *h, uint64_t n) {
    if (n > h->size) return 0;
    uint64_t need = (n + 15) / 16 * 16 + sizeof(chunk);
    pthread_mutex_lock(&h->lock);
    uint64_t got = 0;
    for (size_t off = 0; off < h->size; off += at(h, off)->size) {
        chunk *c = at(h, off);
        if (c->used) continue;
        while (off + c->size < h->size && !at(h, off + c->size)->used)
            c->size += at(h, off + c->size)->size; /* coalesce the free chunks after it */
        if (c->size < need) continue;
        if (c->size - need >= 2 * sizeof(chunk)) { /* split off the rest */
            chunk rest = {c->size - need, 0};
            memcpy(h->base + off + need, &rest, sizeof rest);
            c->size = need;
        }
        c->used = 1;
        got = (uint64_t)(uintptr_t)(h->base + off + sizeof(chunk));
        memset(h->base + off + sizeof(chunk), 0, c->size - sizeof(chunk));
        break;
    }
    pthread_mutex_unlock(&h->lock);
    return got;
}

/* Whether p is a pointer malloc returned and free has not: freed then. */
static bool heap_free(mock_ptx_heap *h, uint64_t p) {
    bool ok = false;
    pthread_mutex_lock(&h->lock);
    for (size_t off = 0; off < h->size; off += at(h, off)->size) {
        if ((uint64_t)(uintptr_t)(h->base + off + sizeof(chunk)) == p) {
            ok = at(h, off)->used != 0;
            at(h, off)->used = 0;
            break;
        }
    }
    pthread_mutex_unlock(&h->lock);
    return ok;
}

int ptx__heap_call(pblock *b, pwarp *w, const pframe *cur, const pinst *in, uint32_t m) {
    const pcall *c = &cur->f->calls[in->aux];
    mock_ptx_heap *h = b->run->l->heap;
    for (uint32_t mm = m; mm != 0; mm &= mm - 1) {
        pthr *t = &b->t[w->first + (unsigned)__builtin_ctz(mm)];
        uint64_t arg = 0;
        memcpy(&arg, t->local + cur->base + c->arg_off[0], 8);
        if (in->sub == 0) { /* malloc(size) */
            uint64_t p = h != NULL ? heap_malloc(h, arg) : 0;
            ptx__check_heap_new(b, p, arg);
            if (c->ret_off >= 0) memcpy(t->local + cur->base + (size_t)c->ret_off, &p, 8);
        } else if (arg != 0 && (h == NULL || !heap_free(h, arg))) {
            return ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                              "free(0x%llx): not a pointer that device malloc returned and free "
                              "has not freed",
                              (unsigned long long)arg);
        }
    }
    return TS_RUN;
}

uint32_t ptx__call_others(const pwarp *w, const ppath *p, const pinst *in, uint32_t mask) {
    const pframe *cur = &p->frames[p->depth];
    if (cur->f->calls[in->aux].callee != NULL) return 0;
    const uint64_t *x = w->regs[p->depth] + ((size_t)in->s[0] << 5);
    uint64_t first = x[__builtin_ctz(mask)];
    uint32_t others = 0;
    for (uint32_t mm = mask; mm != 0; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        if (x[l] != first) others |= 1u << l;
    }
    return others;
}

const mock_ptx_func *ptx__callee(pblock *b, pwarp *w, ppath *p, const pinst *in, const pcall *c) {
    const mock_ptx_func *caller = p->frames[p->depth].f;
    const uint64_t *x = w->regs[p->depth] + ((size_t)in->s[0] << 5);
    unsigned l0 = (unsigned)__builtin_ctz(p->mask);
    pthr *t = &b->t[w->first + l0];
    const mock_ptx_module *mod = caller->mod;
    for (size_t i = 0; i < mod->nfuncs; i++) {
        const mock_ptx_func *g = &mod->funcs[i];
        if ((uint64_t)(uintptr_t)g != x[l0]) continue;
        if (g->entry || !g->decoded || g->error != NULL || g->nparams != c->nargs) {
            ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_INSTRUCTION,
                       "an indirect call of %s with %d arguments, which %s", g->name, c->nargs,
                       g->nparams != c->nargs ? "does not match its parameters"
                                              : "cannot run here");
            return NULL;
        }
        return g;
    }
    ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS,
               "an indirect call through 0x%llx, which is not the address of a function of the "
               "module",
               (unsigned long long)x[l0]);
    return NULL;
}
