/* Internal: the tracer's summary table (summary.c). */
#ifndef CUSHIM_TRACE_SUMMARY_H
#define CUSHIM_TRACE_SUMMARY_H

#include <stddef.h>

#include "cushim.h"

void cushim__summary_count(const cushim_hook_call *c);
void cushim__summary_reset(void);
size_t cushim__summary_print(char *buf, size_t cap);

#endif
