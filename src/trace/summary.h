/* Internal: the tracer's summary table (summary.c). */
#ifndef CUSHIM_TRACE_SUMMARY_H
#define CUSHIM_TRACE_SUMMARY_H

#include <stddef.h>

#include "cushim.h"
#include "trace/rt_entry.h"

void cushim__summary_count(const cushim_hook_call *c);
void cushim__summary_reset(void);
size_t cushim__summary_print(char *buf, size_t cap);

/* The runtime's calls: one more of e, ns long; the table, most total time first (its length, 0
 * when no runtime call was counted); the counts forgotten. */
void cushim__summary_rt_count(cushim__trace_rt_entry *e, unsigned long long ns, bool failed);
size_t cushim__summary_rt_print(char *buf, size_t cap);
void cushim__summary_rt_reset(void);

#endif
