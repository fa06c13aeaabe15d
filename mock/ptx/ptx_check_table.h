/* Internal to the checks (ptx_check.c): the shadow of one byte of memory, and a table of them
 * keyed by address for global memory (ptx_check_table.c). */
#ifndef CUSHIM_MOCK_PTX_CHECK_TABLE_H
#define CUSHIM_MOCK_PTX_CHECK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PSH_NOBODY 0xffffu /* rthr2: no second reader */
#define PSH_ATOMIC 0xfffeu /* wthr: written by an atomic (races with nothing) */

/* The last write and reads of a byte: epochs (barrier intervals, counted on from block to block;
 * 0: never), threads (linear index in the block), PTX lines. rthr2 is the first reader of the
 * epoch from a warp other than rthr's. wmask and rmask: the lanes of the writer's (first
 * reader's) path when it accessed, wsync and rsync its warp's __syncwarp count then (the rule
 * within a warp). pad: initcheck's flag of a byte stored undefined. */
typedef struct pshadow {
    uint32_t wep, rep;
    uint16_t wthr, rthr, rthr2, pad;
    uint32_t wline, rline, rline2;
    uint32_t wmask, rmask, wsync, rsync;
} pshadow;

/* Global accesses of a block, by address: a direct-mapped table, made at its first use. */
typedef struct ptable {
    uint64_t *keys; /* address + 1; 0: empty */
    pshadow *vals;
    size_t cap;
} ptable;

#define TABLE_SLOTS (1u << 12)
#define TABLE_SHIFT 52 /* 64 - log2(TABLE_SLOTS): the top bits of the hash index the table */

/* ptx__table_get's first call, which makes the table (NULL when out of memory). */
pshadow *ptx__table_first(ptable *t, uint64_t addr);

/* The record of global address `addr`, zeroed when its slot held another address; NULL when
 * out of memory. */
static inline pshadow *ptx__table_get(ptable *t, uint64_t addr) {
    if (t->keys == NULL) return ptx__table_first(t, addr);
    uint64_t key = addr + 1, h = key * 0x9e3779b97f4a7c15ull;
    size_t j = (size_t)(h >> TABLE_SHIFT);
    if (t->keys[j] != key) {
        t->keys[j] = key;
        memset(&t->vals[j], 0, sizeof t->vals[j]);
    }
    return &t->vals[j];
}
/* Forgets what was recorded of the n bytes at addr (memory handed out anew: device malloc). */
void ptx__table_forget(ptable *t, uint64_t addr, uint64_t n);
void ptx__table_free(ptable *t);

#endif
