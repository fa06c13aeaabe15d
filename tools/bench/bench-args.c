/* The benchmarks' command lines. */
#include <errno.h>
#include <stdlib.h>

#include "bench-args.h"

bool bench_parse_int(const char *s, int min, int *out) {
    if (s == NULL || *s == '\0') return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > 100000000) return false;
    *out = (int)v;
    return true;
}
