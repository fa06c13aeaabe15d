/* ptx-bench's scaling table (ptx-scale.c): the interpreter's rows at 1 and at N host threads,
 * read back from the two runs of the program, beside the same computations in C at 1 and N. */
#ifndef CUSHIM_PTX_SCALE_H
#define CUSHIM_PTX_SCALE_H

#include <stdbool.h>

/* The most rounds (--rounds), and the rows kept from their runs: two runs a round, each of up
 * to 6 rows (8 with room). */
#define PTX_SCALE_ROUNDS 64
#define PTX_SCALE_ROWS (PTX_SCALE_ROUNDS * 2 * 8)

typedef struct ptx_scale {
    int nrows;
    struct {
        char name[32], threads[16];
        double ms; /* wall time a launch */
    } row[PTX_SCALE_ROWS];
} ptx_scale;

/* Runs this program again with CUSHIM_MOCK_THREADS=threads, its output passed on to stdout and
 * its rows kept in s; the child's exit status. */
int ptx_scale_child(ptx_scale *s, const char *threads, char **argv);
/* The table: per kernel, the wall time a launch on 1 thread over that on `threads`, interpreted
 * and with the compiling tier, and the same for the C computation, measured here `rounds` times
 * (1 and `threads` in turn); each figure the median of the rounds'. */
void ptx_scale_print(const ptx_scale *s, int threads, int rounds, bool quick);

#endif
