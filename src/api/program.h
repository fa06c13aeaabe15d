/* Internal: programs (NVRTC) and what programs and linkers share: turning the toolkit
 * libraries' codes into CUresults with a sentence. */
#ifndef CUSHIM_API_PROGRAM_H
#define CUSHIM_API_PROGRAM_H

#include <pthread.h>

#include "api/object.h"
#include "cushim_nvrtc_table.h"

/* The kinds a program yields, which index its code. */
#define CUSHIM__PROGRAM_KINDS 3

struct cushim_program {
    cushim__object obj;
    nvrtcProgram raw;
    pthread_mutex_t lock; /* one compile at a time */
    atomic_bool compiled; /* set, with release, once a compile succeeded and the code is read */
    bool attempted;       /* under lock */
    char *log;            /* the compile log, or NULL: read as "" */
    void *code[CUSHIM__PROGRAM_KINDS];
    size_t size[CUSHIM__PROGRAM_KINDS];
    /* The real arch named in the options (sm_90: 90), 0 for none; and whether it was an
     * arch-specific one (sm_90a), whose cubin runs on that compute capability only. */
    int arch;
    bool arch_exact;
};

/* The CUresult whose sentence is true of an NVRTC code; NVRTC_ERROR_INTERNAL_ERROR from a stub
 * (the library is absent) keeps the loader's result, which the caller passes as absent. */
CUresult cushim__nvrtc_result(nvrtcResult r);

/* The name of an NVRTC code (cushim's own list, as nvrtcGetErrorString answers). */
const char *cushim__nvrtc_name(nvrtcResult r);

/* Whether a cubin for arch (exact: arch-specific) runs on compute capability cc (9.0: 90). */
bool cushim__arch_runs_on(int arch, bool exact, int cc);

/* The compute capability of ctx's device as major * 10 + minor. */
CUresult cushim__device_cc(const cushim_context *ctx, int *cc, const char *fn);

#endif
