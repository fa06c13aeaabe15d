/* Internal: what the files of pitched memory and 2D and 3D copies (rt_pitched.c, rt_copy3d.c)
 * share. */
#ifndef CUSHIM_RUNTIME_RT_PITCHED_H
#define CUSHIM_RUNTIME_RT_PITCHED_H

#include "runtime/rt.h"

/* cudaErrorInvalidMemcpyDirection, with a sentence naming fn, for a kind that is no
 * cudaMemcpyKind. */
cudaError_t cushim__rt_check_kind(enum cudaMemcpyKind kind, const char *fn);
/* The driver's memory type of a copy's destination (dst) or source for a runtime kind: host
 * or device, unified for cudaMemcpyDefault. */
CUmemorytype cushim__rt_memory_type(enum cudaMemcpyKind kind, bool dst);

#endif
