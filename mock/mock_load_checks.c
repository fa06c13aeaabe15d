/* What the driver refuses when a module loads, found in the image the readers made (issue 28,
 * item 5): run by every load (mock_module.c's compile) after the interpreter parsed the PTX. */
#include <stdio.h>
#include <string.h>

#include "mock.h"

/* The JIT's error log of a load refused here; the mock's lock is held while images load. */
static char refusal_log[768];

/* Whether a cubin of the image runs on compute capability cc: the same major, a minor not
 * above the device's (a cubin whose e_flags do not say is taken to run). */
static bool sass_runs(const mock_image *img, int cc) {
    for (int i = 0; i < img->nsass_archs; i++) {
        int arch = img->sass_archs[i];
        if (arch == 0 || (arch / 10 == cc / 10 && arch % 10 <= cc % 10)) return true;
    }
    return false;
}

/* Whether the interpreter's refusal is of PTX the driver loads: what it does not implement, and
 * an extern variable that no loaded module defines (the mock resolves them across modules; the
 * driver's JIT drops an unused one). Such a module loads, and a host kernel may stand in. */
static bool refusal_is_the_mocks(const char *why) {
    return strstr(why, "support") != NULL || strstr(why, "defined in no module") != NULL;
}

/* What the driver refuses at load that the interpreter found (issue 28): PTX it cannot parse
 * (CUDA_ERROR_INVALID_PTX with the parser's sentence), and an image whose only code is for a
 * target above the device: bare PTX fails the JIT as ptxas fails it, a fatbin has no binary
 * for the device. */
CUresult mock__load_checks(const mock_image *img, int cc, const char **log) {
    if (img->nptx == 0 && !img->has_ptx) {
        if (!img->has_sass || img->nsass_archs == 0 || sass_runs(img, cc)) return CUDA_SUCCESS;
        snprintf(refusal_log, sizeof refusal_log,
                 "mock: no binary for the device: the image holds SASS for sm_%d only, which "
                 "does not run on compute capability %d.%d, and no PTX",
                 img->sass_arch, cc / 10, cc % 10);
        mock__why("%s", refusal_log);
        *log = refusal_log;
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    if (img->interp_refused && !refusal_is_the_mocks(img->interp_error)) {
        snprintf(refusal_log, sizeof refusal_log, "mock ptxas error: %s", img->interp_error);
        mock__why("the PTX cannot be compiled: %s", img->interp_error);
        *log = refusal_log;
        return CUDA_ERROR_INVALID_PTX;
    }
    if (!img->ptx_above || (img->has_sass && sass_runs(img, cc))) return CUDA_SUCCESS;
    if (img->fatbin || img->has_sass) {
        snprintf(refusal_log, sizeof refusal_log,
                 "mock: no binary for the device: %s, and no cubin for it", img->interp_error);
        mock__why("%s", refusal_log);
        *log = refusal_log;
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    snprintf(refusal_log, sizeof refusal_log,
             "mock ptxas fatal: SM version specified by .target is higher than default SM "
             "version assumed (%s; build it for compute_%d or lower)",
             img->interp_error, cc);
    mock__why("%s", refusal_log);
    *log = refusal_log;
    return CUDA_ERROR_INVALID_PTX;
}
