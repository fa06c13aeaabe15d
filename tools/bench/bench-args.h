/* The benchmarks' command lines: what cushim-bench and cudart-bench both read. */
#ifndef CUSHIM_BENCH_ARGS_H
#define CUSHIM_BENCH_ARGS_H

#include <stdbool.h>

/* A whole decimal number from min to 100000000 into *out; false (and *out untouched) for
 * anything else, NULL and "" included. */
bool bench_parse_int(const char *s, int min, int *out);

#endif
