/* ptx-bench --pairs: the scaling from 1 to N host threads measured in one process, a kernel's
 * launches on 1 thread and on N in turn, a fraction of a second each, and the same machine's C
 * reference (ptx-native.h's ROWS) on 1 and N in the same rounds. On a host whose speed per CPU
 * moves from one second to the next, a ratio of two figures taken seconds apart says more about
 * the host than about the program; a ratio taken within the same half second, over many such
 * pairs, cancels that drift, and the C pairs of the same rounds say what the host gave then. */
#ifndef CUSHIM_PTX_PAIRS_H
#define CUSHIM_PTX_PAIRS_H

#include <stdbool.h>

#include "ptx-native.h"

/* The most rounds a row takes. */
#define PTX_PAIRS_MAX 64

/* One launch of the row's kernel and its synchronize; false when either fails. */
typedef bool (*ptx_pairs_launch)(void *user);

typedef struct ptx_pairs {
    int threads;          /* N */
    int rounds;           /* pairs a row, 1 to PTX_PAIRS_MAX */
    double seconds;       /* each segment's wall time, at least */
    ptx_native_grid rows; /* the C reference (kernel PTX_NATIVE_ROWS) */
} ptx_pairs;

/* The table's heading. */
void ptx_pairs_header(const ptx_pairs *p);
/* Measures the row `name` (CUSHIM_MOCK_THREADS set to 1 and N in turn, a launch before each
 * segment untimed) and prints its line; false when a launch failed. */
bool ptx_pairs_row(const ptx_pairs *p, const char *name, ptx_pairs_launch launch, void *user);

#endif
