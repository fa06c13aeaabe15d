/* Internal to the checks: the shadow of a block and what a launch reported, shared by the
 * memory checks (ptx_check.c) and the barrier checks (ptx_check_sync.c); a report written or
 * turned into the launch's fault (ptx_check_report.c). */
#ifndef CUSHIM_MOCK_PTX_CHECK_REPORT_H
#define CUSHIM_MOCK_PTX_CHECK_REPORT_H

#include "ptx_check_table.h"
#include "ptx_run.h"

#define SEEN_CAP 64

typedef struct pcheck {
    pshadow *sh;            /* one per byte of the block's shared memory, NULL when not needed */
    uint8_t *uni;           /* one per word of it: 1 when the word's four records are alike */
    ptable global;          /* global bytes the block touched (racecheck) */
    uintptr_t ilo, ihi;     /* initcheck: the allocation whose written bits were looked up last, */
    unsigned char *imap;    /* and its bits */
    uint32_t epoch, base;   /* the current epoch, and the block's first */
    struct ptaint_warp *tw; /* initcheck: each warp's register taints (ptx_check_taint.c) */
    uint32_t *wsync;        /* racecheck: each warp's bar.warp.sync count since the block began */
    uintptr_t unoted;       /* the allocation whose undefined store the block noted last */
    size_t sh_written;      /* shared bytes the block has stored to (the first time each) */
    size_t sh_undef;        /* stores of undefined values to shared memory in the block */
} pcheck;

typedef struct pcheck_run {
    uint64_t seen[SEEN_CAP]; /* (kind, line, other line) reported in this launch */
    unsigned nseen;
    bool shared_init; /* initcheck of shared memory (off for a kernel with async copies) */
} pcheck_run;

/* The flags `uni` of the words [off / 4, (off + nb + 3) / 4) of shared memory (`size` bytes)
 * worked out again, after their records changed byte by byte (ptx_check.c). */
void ptx__shadow_words(pcheck *c, size_t size, size_t off, size_t nb);

/* A check of kind 0..3 (memcheck, racecheck, initcheck, synccheck) fired: counted, then the
 * launch fails with CUDA_ERROR_LAUNCH_FAILED (the first fault wins; TS_FAULT), or in report mode
 * a sentence on stderr, once per launch for each pair of lines (kind, the access's line,
 * other_line), and the kernel goes on (TS_RUN). */
int ptx__check_report(pblock *b, const pthr *t, const pinst *in, int kind, unsigned other_line,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
