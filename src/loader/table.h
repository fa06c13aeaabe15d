/* Internal: the generated resolution list, the tables of both default-stream modes, and the
 * loader's helpers. */
#ifndef CUSHIM_LOADER_TABLE_H
#define CUSHIM_LOADER_TABLE_H

#include <stddef.h>

#include "cushim.h"

/* One driver entry: how cuda.h names it, the symbol that name reaches in each default-stream
 * mode, the base name cuGetProcAddress takes, the release in which the header's ABI of it
 * appeared (legacy and per-thread; 0 when the entry has no per-thread variant), and where its
 * slot lies in the table (the same offset in both modes' tables). */
typedef struct cushim__entry {
    const char *name;        /* as cuda.h declares it: "cuCtxCreate" */
    const char *symbol;      /* what that name reaches in the legacy mode: "cuCtxCreate_v4" */
    const char *ptds_symbol; /* and in the per-thread mode: "cuLaunchKernel_ptsz" */
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

/* A slot of the per-thread table that holds a function of cushim's instead of the driver's
 * (cuda.h's inline cuGetProcAddress_v2_ptsz). */
typedef struct cushim__override {
    unsigned index;
    void (*fn)(void);
} cushim__override;

/* One mode's table, and the two sets of stubs it is reset to: `lazy` (load the driver on the
 * first call, then call through the slot; what the table holds before a driver is loaded and
 * when none can be) and `missing` (the entry is not in this driver). */
typedef struct cushim__mode_tables {
    void *live;
    const void *lazy;
    const void *missing;
    size_t size; /* of each of the three tables */
    const cushim__override *overrides;
    unsigned override_count;
    /* The drop-in's table (NULL for a library without a drop-in), which the trampolines jump
     * through, and what it holds until the library is initialised: stubs that answer as the
     * library does before its init (the driver: CUDA_ERROR_NOT_INITIALIZED before cuInit). */
    void *dropin;
    const void *uninit;
} cushim__mode_tables;

extern const cushim__entry cushim__entries[CUSHIM_TABLE_ENTRIES];
extern const cushim__mode_tables cushim__legacy_tables;
extern const cushim__mode_tables cushim__per_thread_tables;
extern const cushim__error_text cushim__errors[];
extern const unsigned cushim__error_count;

/* Called by the stub in the slot of entry `index` of the legacy (0) or per-thread (1) table
 * when the driver lacks it: records why and returns CUDA_ERROR_NOT_SUPPORTED. */
CUresult cushim__unavailable(unsigned index, int per_thread);

/* Called by the drop-in's stub of entry `index` before the driver was initialised: records
 * why and returns CUDA_ERROR_NOT_INITIALIZED, as libcuda does before cuInit. */
CUresult cushim__before_init(unsigned index, int per_thread);

/* Called by the lazy stub of entry `index` when cushim_init() failed with r: sets the last error
 * to the entry's name and the reason, and returns r. */
CUresult cushim__no_driver(unsigned index, CUresult r);

/* cuGetErrorName and cuGetErrorString answered from cushim's own tables, with the driver's
 * contract: CUDA_ERROR_INVALID_VALUE and *out NULL for a code cuda.h does not have. */
CUresult cushim__own_error_name(CUresult error, const char **out);
CUresult cushim__own_error_string(CUresult error, const char **out);

#endif
