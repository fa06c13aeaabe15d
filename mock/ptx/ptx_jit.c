/* The compiling tier: whether a launch runs compiled code (CUSHIM_MOCK_JIT), compiling a kernel
 * once, and a path's turn passed between compiled code and the interpreter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>

#include "ptx_jit.h"

/* CUSHIM_MOCK_JIT=auto compiles a kernel once its launches have run this many
 * thread-instructions (about a fifth of a second interpreted, several times a compile's cost). */
#define AUTO_STEPS (1ull << 28)

enum { J_NONE, J_BUSY, J_READY, J_FAILED };
enum { MODE_OFF, MODE_AUTO, MODE_ON };

static int mode(void) {
    const char *e = getenv("CUSHIM_MOCK_JIT");
    if (e == NULL || *e == 0 || strcmp(e, "auto") == 0) return MODE_AUTO;
    if (strcmp(e, "on") == 0 || strcmp(e, "1") == 0) return MODE_ON;
    return MODE_OFF;
}

/* A line on stderr where CUSHIM_LOG asks for info (the mock's log level). */
static void say(const mock_ptx_func *k, const char *why) {
    const char *e = getenv("CUSHIM_LOG");
    if (e != NULL && (strcmp(e, "info") == 0 || strcmp(e, "debug") == 0))
        fprintf(stderr, "cushim mock: kernel %s runs interpreted: %s\n", k->name, why);
}

static pjit *compile(const mock_ptx_func *k) {
    pjit *j = calloc(1, sizeof *j);
    uint8_t *entry = calloc(k->ncode + 1, 1);
    char *src = j != NULL && entry != NULL ? ptx__jit_source(k, entry, &j->whole) : NULL;
    char why[256] = "out of memory";
    if (src != NULL) {
        j->fn = ptx__jit_build(src, &j->dl, why, sizeof why);
        free(src);
    }
    if (j == NULL || j->fn == NULL) {
        say(k, why);
        free(entry);
        free(j);
        return NULL;
    }
    j->entry = entry;
    j->ncode = k->ncode;
    return j;
}

pjit *ptx__jit_for(const mock_ptx_func *kc, const prun *r) {
    /* The checks and the random schedule run the interpreter only. */
    if (r->checks != 0 || r->seed != 0) return NULL;
    mock_ptx_func *k = (mock_ptx_func *)kc; /* only its jit fields, atomically */
    int st = __atomic_load_n(&k->jit_state, __ATOMIC_ACQUIRE);
    if (st == J_READY) return mode() == MODE_OFF ? NULL : k->jit;
    if (st != J_NONE) return NULL;
    int m = mode();
    if (m == MODE_OFF) return NULL;
    if (m == MODE_AUTO && __atomic_load_n(&k->jit_steps, __ATOMIC_RELAXED) < AUTO_STEPS)
        return NULL;
    /* One thread compiles; launches on others meanwhile interpret. */
    int none = J_NONE;
    if (!__atomic_compare_exchange_n(&k->jit_state, &none, J_BUSY, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return NULL;
    pjit *j = compile(k);
    k->jit = j;
    k->jit_free = ptx__jit_free;
    __atomic_store_n(&k->jit_state, j != NULL ? J_READY : J_FAILED, __ATOMIC_RELEASE);
    return j;
}

/* Compiled warp-instructions: counted per block as steps are, added to the process's count once
 * a launch (host threads do not contend for it as they run). */
static uint64_t jit_count;

void ptx__jit_ran(const mock_ptx_func *kc, uint64_t steps, uint64_t compiled) {
    mock_ptx_func *k = (mock_ptx_func *)kc;
    if (__atomic_load_n(&k->jit_steps, __ATOMIC_RELAXED) < AUTO_STEPS)
        __atomic_fetch_add(&k->jit_steps, steps, __ATOMIC_RELAXED);
    if (compiled != 0) __atomic_fetch_add(&jit_count, compiled, __ATOMIC_RELAXED);
}

uint64_t mock__ptx_jit_instructions(void) { return __atomic_load_n(&jit_count, __ATOMIC_RELAXED); }

/* What compiled code is given for block b, but for R, n and pc. Field by field: an initializer
 * would zero the whole structure first, which gcc does with `rep stos` (once a call into compiled
 * code, 40% of ptx__jit_exec's time on the reduction). */
static void ctx_for(struct pjit_ctx *c, const pblock *b, uint64_t budget) {
    c->params = b->run->params;
    c->lo = b->w->lo;
    c->hi = b->w->hi;
    c->smem = b->smem;
    c->smem_size = b->smem_size;
    c->budget = budget;
    c->blk[0] = b->ctaid[0];
    c->blk[1] = b->ctaid[1];
    c->blk[2] = b->ctaid[2];
    c->blk[3] = b->smid;
    c->pad = 0;
}

int ptx__jit_exec(pblock *b, pwarp *w, ppath *p, uint64_t budget, uint64_t n0) {
    const pjit *j = b->run->jit;
    uint64_t n = n0;
    for (;;) {
        if (p->mask == 0xffffffffu && p->depth == 0 && j->entry[p->pc]) {
            struct pjit_ctx c;
            ctx_for(&c, b, budget);
            c.R = w->regs[0];
            c.n = n;
            c.pc = p->pc;
            int s = j->fn(&c);
            b->steps += (c.n - n) * 32;
            b->jit_ran += c.n - n;
            n = c.n;
            p->pc = c.pc;
            if (s == PJIT_YIELD) return TS_YIELD;
            if (s == PJIT_EXIT) { /* as ptx_exec.c's exit of a whole path */
                b->exited += 32;
                w->live = 0;
                p->mask = 0;
                return TS_EXIT;
            }
        }
        int st = ptx__exec_from(b, w, p, budget, n, j->entry, &n);
        if (st != TS_RUN) return st;
    }
}

bool ptx__jit_whole(const prun *r) {
    return r->jit != NULL && r->jit->whole && r->threads % 32 == 0;
}

int ptx__jit_block(pblock *b, unsigned *stop, uint64_t *used, uint32_t *pc) {
    const pjit *j = b->run->jit;
    struct pjit_ctx c;
    ctx_for(&c, b, QUANTUM);
    c.n = 0;
    c.pc = 0;
    unsigned i = 0;
    int s = PJIT_EXIT;
    for (; i < b->nwarps; i++) {
        c.R = b->warps[i].regs[0];
        c.n = 0;
        c.pc = 0;
        s = j->fn(&c);
        b->steps += c.n * 32;
        b->jit_ran += c.n;
        if (s != PJIT_EXIT) break;
    }
    *stop = i;
    *used = c.n;
    *pc = c.pc;
    return s;
}

void ptx__jit_free(pjit *j) {
    if (j == NULL) return;
    if (j->dl != NULL) dlclose(j->dl);
    free(j->entry);
    free(j);
}
