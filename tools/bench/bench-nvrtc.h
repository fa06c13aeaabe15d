/* The NVRTC rows: nvrtcCompileProgram of a small kernel, and the cost of a call through the
 * drop-in's trampoline to NVRTC, each against NVRTC called directly (bench-nvrtc.c, with the
 * toolkit's nvrtc.h) and through the drop-in (bench-dropin.c, with cushim's). */
#ifndef CUSHIM_BENCH_NVRTC_H
#define CUSHIM_BENCH_NVRTC_H

#include <nvrtc.h>
#include <stddef.h>

#include "bench.h"

/* The small kernel both sides compile, and the options. */
extern const char bench_nvrtc_source[];
#define BENCH_NVRTC_ARCH "-arch=compute_90"

/* Whether NVRTC can be called directly: the library cushim found, opened by the benchmark
 * itself and its entries resolved with dlsym. False, with the reason in note, otherwise. */
bool bench_nvrtc_available(char *note, size_t n);

/* n times create + compile + destroy of bench_nvrtc_source: directly, and by the drop-in's
 * names. */
CUresult bench_direct_nvrtc_compile(bench_env *e, int n);
CUresult bench_dropin_nvrtc_compile(bench_env *e, int n);

/* The entries a compile row calls, and the row's loop over them (bench-nvrtc.c), so that both
 * sides time the same work: NVRTC's own entries, or the drop-in's by the same names. */
typedef struct bench_nvrtc_calls {
    __typeof__(nvrtcCreateProgram) *create;
    __typeof__(nvrtcCompileProgram) *compile;
    __typeof__(nvrtcDestroyProgram) *destroy;
} bench_nvrtc_calls;
CUresult bench_nvrtc_compile_loop(const bench_nvrtc_calls *c, int n);

/* k calls of nvrtcVersion, for the instruction probe. */
CUresult loop_direct_nvrtc_version(const bench_env *e, int k);
CUresult loop_cushim_nvrtc_version(const bench_env *e, int k);

#endif
