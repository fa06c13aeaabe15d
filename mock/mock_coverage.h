/* Internal to the mock driver: every entry of cuda.h, what the mock implements of them, and the
 * stubs that answer the rest. Included by mock.h. */
#ifndef CUSHIM_MOCK_COVERAGE_H
#define CUSHIM_MOCK_COVERAGE_H

#include <cuda.h>
#include <stdbool.h>

/* One entry of cuda.h (generated into mock_stubs.c by gen-mock-stubs.py, in cuda.h's order). */
typedef struct mock_cuda_entry {
    const char *name;        /* as cuda.h's prototype writes it: "cuMemcpyHtoD" */
    const char *symbol;      /* the symbol it declares: "cuMemcpyHtoD_v2" */
    const char *ptds_symbol; /* what a per-thread caller reaches: "cuMemcpyHtoD_v2_ptds" */
    const char *base;        /* as cuGetProcAddress takes it: "cuMemcpyHtoD" */
    int version;             /* the ABI of the prototype: the PFN_ typedef's version */
    int ptds_version;        /* that of the per-thread form, 0 for none */
    void (*stub)(void);      /* answers CUDA_ERROR_NOT_SUPPORTED */
    void (*stub_pt)(void);   /* the same under the per-thread symbol, NULL for none */
} mock_cuda_entry;
extern const mock_cuda_entry mock__cuda_entries[];
extern const int mock__cuda_entry_count;

/* What the mock keeps per entry of cuda.h (generated beside the table, one per entry). */
typedef struct mock_cuda_entry_state {
    int calls;         /* of its stubs, since reset */
    int pt_calls;      /* of its per-thread stub, since reset */
    bool handed_out;   /* a stub of it was handed out by cuGetProcAddress */
    bool said;         /* "not implemented" was said on stderr */
    bool implemented;  /* MOCK_ENTRIES has its row (known once mock_coverage.c asked) */
    int first_of_base; /* the first entry of its base name (known with `implemented`) */
} mock_cuda_entry_state;
extern mock_cuda_entry_state mock__cuda_entry_states[];

/* What a stub does: logs and counts the call (under the per-thread symbol for stub_pt),
 * applies injected faults, says once on stderr that the entry is not implemented, and returns
 * CUDA_ERROR_NOT_SUPPORTED. Takes the lock itself. */
CUresult mock__stub_call(int entry, bool per_thread);

/* cuGetProcAddress for a base name the mock has no row for, with the lock held: the stub of
 * the newest cuda.h entry of that base whose ABI the asked version has (its per-thread stub
 * when the flags ask for it and there is one). CUDA_SUCCESS with *fn set, or
 * CUDA_ERROR_NOT_FOUND with *status (when not NULL) saying why. */
CUresult mock__stub_lookup(const char *base, int version, unsigned long long flags,
                           void (**fn)(void), CUdriverProcAddressQueryResult *status);

/* The key faults of a stubbed entry are armed under (mock_fail.row_base): past the rows, so the
 * two never collide; -1 when cuda.h has no entry of that name (any form). */
int mock__stub_key(const char *name);
/* Calls of a stubbed entry named in any form since reset; those through its per-thread stub. */
int mock__stub_calls(const char *name);
int mock__stub_pt_calls(const char *name);
/* Distinct stubs cuGetProcAddress handed out (kept across reset, as the rows' record is). */
int mock__stubs_handed_out(void);
/* Forgets the calls of stubs (at reset). */
void mock__coverage_reset(void);
/* The control functions of coverage (cushim_mock.h, "Coverage"). */
struct cushim_mock_api;
void mock__coverage_api(struct cushim_mock_api *api);
/* The plain exports (generated with the stubs): slot k is jumped through by the symbol of
 * entry mock__plains[k].entry (its per-thread symbol when per_thread), filled at load by
 * mock_exports.c. */
typedef struct mock_plain {
    int entry;
    bool per_thread;
} mock_plain;
extern void (*mock__plain_slots[])(void);
extern const mock_plain mock__plains[];
extern const int mock__plain_count;
/* The row of MOCK_ENTRIES that cuGetProcAddress answers for a base name at a version: the
 * newest ABI the version has; -1 for none, with *known saying whether the name has a row. */
int mock__best_row(const char *base, int version, bool *known);

/* Applies the faults armed for key (a row's base row, or a stub's key) and fail_any to one
 * call, with the lock held: the code to fail it with, CUDA_SUCCESS for none (mock_core.c). */
CUresult mock__injected(int key);

#endif
