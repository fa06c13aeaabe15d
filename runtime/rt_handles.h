/* Internal: the streams and events the runtime made, by their driver handle. A cudaStream_t or
 * cudaEvent_t is the driver's CUstream or CUevent (programs hand them to driver calls and other
 * libraries), and behind it is a cushim object, for recycling and for the event's record flag.
 * A handle the runtime did not make (from the driver API) is not here, and is used as it is. */
#ifndef CUSHIM_RUNTIME_RT_HANDLES_H
#define CUSHIM_RUNTIME_RT_HANDLES_H

#include "runtime/rt.h"

/* Remembers obj behind raw; false (with the sentence set, naming fn) when out of memory. */
bool cushim__rt_stream_add(cushim_stream *s, const char *fn);
bool cushim__rt_event_add(cushim_event *e, const char *fn);
/* The object behind raw, or NULL. */
cushim_stream *cushim__rt_stream_of(cudaStream_t raw);
cushim_event *cushim__rt_event_of(cudaEvent_t raw);
/* Forgets raw and returns its object (the caller releases it), or NULL. */
cushim_stream *cushim__rt_stream_take(cudaStream_t raw);
cushim_event *cushim__rt_event_take(cudaEvent_t raw);
/* Releases every stream and event of ctx (cudaDeviceReset, before the context goes). */
void cushim__rt_handles_drop(cushim_context *ctx);

#endif
