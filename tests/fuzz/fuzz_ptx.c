/* The PTX interpreter's fuzzer: any bytes are parsed as a module (mock/ptx/ptx.h); a module
 * that parses has each kernel decoded and, where it decodes, run as one block of 32 threads
 * over zeroed parameters, with no device memory (every global access is refused) and a small
 * bound on instructions. Malformed PTX must be refused with a sentence, never crash; a run
 * must end (with a fault or not) and say why when it fails. Shares replay.c with fuzz_api. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_int.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool no_memory(void *ctx, uintptr_t a, size_t n, uintptr_t *lo, uintptr_t *hi, char *why,
                      size_t len) {
    (void)ctx, (void)a, (void)n, (void)lo, (void)hi;
    snprintf(why, len, "the fuzzer has no device memory");
    return false;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    setenv("CUSHIM_MOCK_PTX_STEPS", "20000", 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[1024];
    err[0] = 0;
    mock_ptx_module *m = NULL;
    CUresult r = mock__ptx_parse(&m, (const char *)data, size, err, sizeof err);
    if (r != CUDA_SUCCESS) {
        if (m != NULL || (r == CUDA_ERROR_INVALID_PTX && err[0] == 0)) abort();
        return 0;
    }
    static unsigned char zeros[4096];
    void *params[256];
    for (int i = 0; i < 256; i++) params[i] = zeros;
    FILE *out = fopen("/dev/null", "w");
    for (size_t i = 0; i < m->nfuncs; i++) {
        const mock_ptx_kernel *k = mock__ptx_kernel(m, m->funcs[i].name);
        if (k == NULL) continue;
        err[0] = 0;
        if (!mock__ptx_prepare(k, err, sizeof err)) {
            if (err[0] == 0) abort(); /* a refusal says why */
            continue;
        }
        bool fits = k->nparams <= 256;
        for (int j = 0; fits && j < k->nparams; j++) fits = k->params[j].size <= sizeof zeros;
        if (!fits) continue;
        mock_ptx_launch l = {.grid = {1, 1, 1},
                             .block = {32, 1, 1},
                             .params = params,
                             .host_threads = 1,
                             .check = no_memory,
                             .out = out};
        err[0] = 0;
        r = mock__ptx_run(k, &l, err, sizeof err);
        if (r != CUDA_SUCCESS && err[0] == 0) abort(); /* a fault says why */
    }
    if (out != NULL) fclose(out);
    mock__ptx_free(m);
    return 0;
}
