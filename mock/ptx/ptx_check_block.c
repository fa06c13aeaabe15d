/* CUSHIM_MOCK_CHECK's shadow of a block: made with the block's memory, started with each block
 * a host thread runs, freed with it; and a launch's checks chosen (ptx_check.c checks the
 * accesses).
 *
 * Epochs go on growing across the blocks a host thread runs, so a block starts without clearing
 * its shadow: what an earlier block recorded is of an older epoch. */
#include <stdlib.h>
#include <string.h>

#include "ptx_check.h"
#include "ptx_check_report.h"
#include "ptx_check_table.h"
#include "ptx_check_taint.h"

/* Whether any function of the kernel's module copies asynchronously into shared memory. */
static bool has_async(const mock_ptx_module *m) {
    for (size_t i = 0; i < m->nfuncs; i++) {
        const mock_ptx_func *f = &m->funcs[i];
        if (!f->decoded || f->error != NULL) continue;
        for (size_t j = 0; j < f->ncode; j++) {
            if (f->code[j].op / T_COUNT == O_ASYNC) return true;
        }
    }
    return false;
}

bool ptx__check_run_begin(prun *r) {
    r->checks = r->l->checks & (MOCK_PTX_CHECK_RACE | MOCK_PTX_CHECK_INIT | MOCK_PTX_CHECK_SYNC |
                                MOCK_PTX_CHECK_RACE_STRICT);
    if (r->checks & MOCK_PTX_CHECK_RACE_STRICT) r->checks |= MOCK_PTX_CHECK_RACE;
    if (r->checks == 0) return true;
    r->chk_run = calloc(1, sizeof *r->chk_run);
    if (r->chk_run == NULL) return false;
    r->chk_run->shared_init = (r->checks & MOCK_PTX_CHECK_INIT) && !has_async(r->k->mod);
    return true;
}

void ptx__check_run_end(prun *r) {
    free(r->chk_run);
    r->chk_run = NULL;
}

bool ptx__check_block_alloc(pblock *b) {
    prun *r = b->run;
    if (r->checks == 0) return true;
    b->chk = calloc(1, sizeof *b->chk);
    if (b->chk == NULL) return false;
    if ((r->checks & MOCK_PTX_CHECK_RACE) &&
        (b->chk->wsync = calloc(b->nwarps, sizeof *b->chk->wsync)) == NULL)
        return false;
    if ((r->checks & (MOCK_PTX_CHECK_RACE | MOCK_PTX_CHECK_INIT)) && b->smem_size > 0) {
        b->chk->sh = calloc(b->smem_size, sizeof *b->chk->sh);
        b->chk->uni = malloc(b->smem_size / 4 + 1);
        if (b->chk->sh == NULL || b->chk->uni == NULL) return false;
        memset(b->chk->uni, 1, b->smem_size / 4 + 1); /* zeroed records are alike */
    }
    return ptx__taint_alloc(b);
}

void ptx__check_block_start(pblock *b) {
    pcheck *c = b->chk;
    if (c == NULL) return;
    if (c->epoch >= 0xfff00000u) { /* epochs about to wrap: start the shadow over */
        if (c->sh != NULL) {
            memset(c->sh, 0, b->smem_size * sizeof *c->sh);
            memset(c->uni, 1, b->smem_size / 4 + 1);
        }
        c->epoch = 0;
    }
    c->base = ++c->epoch;
    c->sh_written = c->sh_undef = 0;
    if (c->wsync != NULL) memset(c->wsync, 0, b->nwarps * sizeof *c->wsync);
    ptx__taint_start(b);
}

void ptx__check_block_free(pblock *b) {
    if (b->chk == NULL) return;
    ptx__taint_free(b);
    ptx__table_free(&b->chk->global);
    free(b->chk->wsync);
    free(b->chk->sh);
    free(b->chk->uni);
    free(b->chk);
    b->chk = NULL;
}

void ptx__check_heap_new(pblock *b, uint64_t p, uint64_t n) {
    if (b->chk != NULL && p != 0) ptx__table_forget(&b->chk->global, p, n);
}
