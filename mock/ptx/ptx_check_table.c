/* The shadow of global memory for racecheck within a block: a direct-mapped table of 2^12
 * records keyed by address. An access whose slot holds another address takes the slot over:
 * what the other address recorded is lost, so a race between accesses of many addresses in one
 * barrier interval can be missed, but a race is never reported that did not happen, and the
 * table costs one hash and no search or clearing. */
#include <stdlib.h>
#include <string.h>

#include "ptx_check_table.h"

pshadow *ptx__table_first(ptable *t, uint64_t addr) {
    t->keys = calloc(TABLE_SLOTS, sizeof *t->keys);
    t->vals = malloc(TABLE_SLOTS * sizeof *t->vals);
    if (t->keys == NULL || t->vals == NULL) {
        ptx__table_free(t);
        return NULL;
    }
    t->cap = TABLE_SLOTS;
    return ptx__table_get(t, addr);
}

void ptx__table_forget(ptable *t, uint64_t addr, uint64_t n) {
    if (t->keys == NULL) return;
    if (n >= TABLE_SLOTS) { /* a range as large as the table: each slot looked at once */
        for (size_t j = 0; j < TABLE_SLOTS; j++) {
            if (t->keys[j] != 0 && t->keys[j] - 1 - addr < n) t->keys[j] = 0;
        }
        return;
    }
    for (uint64_t a = addr; a - addr < n; a++) {
        uint64_t key = a + 1, h = key * 0x9e3779b97f4a7c15ull;
        size_t j = (size_t)(h >> TABLE_SHIFT);
        if (t->keys[j] == key) t->keys[j] = 0;
    }
}

void ptx__table_free(ptable *t) {
    free(t->keys);
    free(t->vals);
    memset(t, 0, sizeof *t);
}
