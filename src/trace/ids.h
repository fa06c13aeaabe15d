/* Internal: the process's and the thread's ids as the tracer writes them, each found once (and
 * again in a forked child). */
#ifndef CUSHIM_TRACE_IDS_H
#define CUSHIM_TRACE_IDS_H

#include "trace/format.h"
#include "trace/tbuf.h"

long cushim__trace_pid(void);
long cushim__trace_tid(cushim__tbuf *b);
/* `,"pid":P,"tid":T` of the calling thread, formatted once per thread. */
void cushim__put_ids(cushim__text *t, cushim__tbuf *b);

#endif
