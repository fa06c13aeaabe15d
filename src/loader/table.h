/* Internal: the generated resolution list and the loader's helpers. */
#ifndef CUSHIM_LOADER_TABLE_H
#define CUSHIM_LOADER_TABLE_H

#include <stddef.h>

#include "cushim.h"

/* One driver entry: how cuda.h names it, the base name cuGetProcAddress takes, the release in
 * which the header's ABI of it appeared (legacy and per-thread default stream; 0 when the entry
 * has no per-thread variant), and where its slot lies in cushim_driver_table. */
typedef struct cushim__entry {
    const char *name;   /* as cuda.h declares it: "cuCtxCreate" */
    const char *symbol; /* what that name expands to: "cuCtxCreate_v4" */
    const char *base;
    int version;
    int ptds_version;
    size_t offset;
} cushim__entry;

typedef struct cushim__error_text {
    int code;
    const char *name;
    const char *text;
} cushim__error_text;

extern const cushim__entry cushim__entries[CUSHIM_TABLE_ENTRIES];
extern const cushim_driver_table cushim__stub_table;
extern const cushim__error_text cushim__errors[];
extern const unsigned cushim__error_count;

/* Called by the stub in the slot of entry `index`: records why and returns
 * CUDA_ERROR_NOT_SUPPORTED. */
CUresult cushim__unavailable(unsigned index);

#endif
