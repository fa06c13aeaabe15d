/* cushim-bench --init: initialisation cost, measured in fresh processes. */
#ifndef CUSHIM_BENCH_INIT_H
#define CUSHIM_BENCH_INIT_H

#include <stdbool.h>
#include <stdio.h>

/* argv[1] of a child: cushim-bench --init-child direct|cushim. Not in --help. */
#define BENCH_INIT_CHILD_FLAG "--init-child"

/* In the child: times one initialisation ("direct": dlopen + cuInit(0); "cushim":
 * cushim_init()), prints "<ns> <entries resolved>" on stdout and returns an exit code. */
int bench_init_child(const char *which);

/* In the parent: runs `runs` children of each kind, alternating, and prints both medians and
 * their difference. Returns an exit code. */
int bench_init_compare(int runs, bool json);

/* Writes s as a JSON string, quotes included. */
void bench_json_string(FILE *f, const char *s);

#endif
