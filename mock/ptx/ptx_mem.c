/* Memory for the executor: a kernel's address checked against its state space (every check
 * written so that it cannot wrap past 2^64: an address near the top, such as nvcc's p[n - 1]
 * with p == NULL and n == 0, fails as the GPU's does), atomics, and the launch's fault. */
#include <stdarg.h>
#include <stdio.h>

#include "ptx_check_src.h"
#include "ptx_run.h"
#include "ptx_val.h"

int ptx__fault(pblock *b, const pthr *t, const pinst *in, CUresult code, const char *fmt, ...) {
    prun *r = b->run;
    int expected = 0;
    if (!__atomic_compare_exchange_n(&r->failed, &expected, 1, false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST)) {
        return TS_FAULT;
    }
    r->code = code;
    int n = ptx__where_text(r->err, r->errlen, b, t, in);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->errlen) vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return TS_FAULT;
}

/* Whether [a, a + n) lies in [lo, lo + size), without a sum that can wrap. */
static inline bool within(uint64_t a, size_t n, uintptr_t lo, size_t size) {
    return a >= lo && a - lo <= size && n <= size - (a - lo);
}

static void *global(pblock *b, pthr *t, const pinst *in, uint64_t a, size_t n, bool write) {
    pworker *w = b->w;
    for (int k = 0; k < 4; k++) {
        if (within(a, n, w->lo[k], w->hi[k] - w->lo[k])) return (void *)(uintptr_t)a;
    }
    const mock_ptx_module *m = b->run->k->mod;
    if (within(a, n, (uintptr_t)b->run->workspace, sizeof b->run->workspace))
        return (void *)(uintptr_t)a;
    if (within(a, n, (uintptr_t)m->storage, m->storage_bytes)) return (void *)(uintptr_t)a;
    if (b->run->heap_size != 0 && within(a, n, b->run->heap_lo, b->run->heap_size)) {
        w->lo[w->next % 4] = b->run->heap_lo; /* device malloc's memory (ptx_heap.c) */
        w->hi[w->next % 4] = b->run->heap_lo + b->run->heap_size;
        w->next++;
        return (void *)(uintptr_t)a;
    }
    const mock_ptx_launch *l = b->run->l;
    char why[256] = "";
    uintptr_t lo = 0, hi = 0;
    if (a != 0 && a + n > a && l->check != NULL &&
        l->check(l->check_ctx, (uintptr_t)a, n, &lo, &hi, why, sizeof why) && lo <= hi) {
        w->lo[w->next % 4] = lo;
        w->hi[w->next % 4] = hi;
        w->next++;
        return (void *)(uintptr_t)a;
    }
    if (why[0] == 0) {
        snprintf(why, sizeof why, "%s",
                 a == 0      ? "a null pointer"
                 : a + n < a ? "the range wraps past 2^64"
                             : "no allocation");
    }
    ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS, "%s %zu-byte %s at address 0x%llx: %s",
               ptx__a(n), n, write ? "write" : "read", (unsigned long long)a, why);
    return NULL;
}

void *ptx__addr(pblock *b, pthr *t, const pinst *in, int space, uint64_t a, size_t n, bool write) {
    prun *r = b->run;
    if (in->flags & F_ADDR32) a = (uint32_t)a;
    if (n > 1 && (a & (n - 1)) != 0) {
        ptx__fault(b, t, in, CUDA_ERROR_MISALIGNED_ADDRESS,
                   "%s %zu-byte %s at address 0x%llx, not aligned to %zu bytes", ptx__a(n), n,
                   write ? "write" : "read", (unsigned long long)a, n);
        return NULL;
    }
    switch (space) {
    case S_SHARED:
        if (within(a, n, 0, b->smem_size)) return b->smem + a;
        ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                   "%s %zu-byte %s at shared address 0x%llx, past the block's %zu bytes of "
                   "shared memory",
                   ptx__a(n), n, write ? "write" : "read", (unsigned long long)a, b->smem_size);
        return NULL;
    case S_LOCAL:
        if (within(a, n, 0, r->local_size)) return t->local + a;
        ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                   "%s %zu-byte %s at local address 0x%llx, past the thread's %zu bytes of "
                   "local memory",
                   ptx__a(n), n, write ? "write" : "read", (unsigned long long)a, r->local_size);
        return NULL;
    case S_PARAM:
        if (!write && within(a, n, 0, r->param_bytes)) return r->params + a;
        ptx__fault(b, t, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                   "%s %zu-byte %s at parameter offset %lld, outside the kernel's %zu bytes of "
                   "parameters",
                   ptx__a(n), n, write ? "write" : "read", (long long)a, r->param_bytes);
        return NULL;
    case S_GENERIC: {
        if (within(a, n, (uintptr_t)b->smem, b->smem_size)) return (void *)(uintptr_t)a;
        if (within(a, n, (uintptr_t)t->local, r->local_size)) return (void *)(uintptr_t)a;
        if (!write && within(a, n, (uintptr_t)r->params, r->param_bytes))
            return (void *)(uintptr_t)a;
        return global(b, t, in, a, n, write);
    }
    default: return global(b, t, in, a, n, write);
    }
}

static uint64_t atom_new(int op, int t, uint64_t old, uint64_t b, uint64_t c) {
    bool wide = bits_of(t) == 64;
    switch (op) {
    case A_ADD:
        if (t == T_F32) return b32(f32(old) + f32(b));
        if (t == T_F64) return b64(f64(old) + f64(b));
        return old + b;
    case A_MIN:
    case A_MAX: {
        bool less = is_signed(t) ? ival(b, t) < ival(old, t)
                                 : (wide ? b < old : (uint32_t)b < (uint32_t)old);
        return (op == A_MIN) == less ? b : old;
    }
    case A_INC: return (uint32_t)old >= (uint32_t)b ? 0 : (uint32_t)old + 1;
    case A_DEC:
        return ((uint32_t)old == 0 || (uint32_t)old > (uint32_t)b) ? (uint32_t)b
                                                                   : (uint32_t)old - 1;
    case A_AND: return old & b;
    case A_OR: return old | b;
    case A_XOR: return old ^ b;
    case A_EXCH: return b;
    case A_CAS: return old == b ? c : old;
    default: return old;
    }
}

uint64_t ptx__atom(void *p, int op, int t, uint64_t b, uint64_t c) {
    if (bits_of(t) == 64) {
        uint64_t *q = p;
        if (op == A_ADD && t != T_F64) return __atomic_fetch_add(q, b, __ATOMIC_SEQ_CST);
        if (op == A_EXCH) return __atomic_exchange_n(q, b, __ATOMIC_SEQ_CST);
        if (op == A_CAS) {
            uint64_t e = b;
            __atomic_compare_exchange_n(q, &e, c, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            return e;
        }
        uint64_t old = __atomic_load_n(q, __ATOMIC_SEQ_CST);
        while (!__atomic_compare_exchange_n(q, &old, atom_new(op, t, old, b, c), true,
                                            __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        }
        return old;
    }
    uint32_t *q = p, bb = (uint32_t)b;
    switch (op) {
    case A_ADD:
        if (t != T_F32) return __atomic_fetch_add(q, bb, __ATOMIC_SEQ_CST);
        break;
    case A_AND: return __atomic_fetch_and(q, bb, __ATOMIC_SEQ_CST);
    case A_OR: return __atomic_fetch_or(q, bb, __ATOMIC_SEQ_CST);
    case A_XOR: return __atomic_fetch_xor(q, bb, __ATOMIC_SEQ_CST);
    case A_EXCH: return __atomic_exchange_n(q, bb, __ATOMIC_SEQ_CST);
    case A_CAS: {
        uint32_t e = bb;
        __atomic_compare_exchange_n(q, &e, (uint32_t)c, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        return e;
    }
    default: break;
    }
    uint32_t old = __atomic_load_n(q, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(q, &old, (uint32_t)atom_new(op, t, old, b, c), true,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    return old;
}
