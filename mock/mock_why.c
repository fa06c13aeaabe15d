/* Why a call failed, for the program: each entry's failure leaves a sentence per thread (what
 * the mock printed on stderr, or the code's name and text), and hands it to the sink a loader
 * registered through cushim_mock_set_error_sink (cushim_mock.h), so that the program's
 * cushim_last_error() says what the mock said. A call that succeeds costs one store. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "mock.h"

static _Thread_local char why[1024];
static _Thread_local char told[1200];
static _Atomic(cushim_mock_error_sink) sink;

void mock__why_clear(void) { why[0] = '\0'; }

void mock__why(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
}

const char *mock__why_text(void) { return why; }

void mock__why_tell(CUresult r) {
    cushim_mock_error_sink fn = atomic_load_explicit(&sink, memory_order_acquire);
    /* NOT_READY answers a query; it is no failure, and cushim keeps the last one's sentence. */
    if (fn == NULL || r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY) return;
    const char *name = mock__error_name(r, true), *text = mock__error_name(r, false);
    char code[32];
    if (name == NULL) snprintf(code, sizeof code, "CUresult %d", (int)r);
    if (why[0] != '\0') {
        snprintf(told, sizeof told, "%s failed on the mock driver with %s: %s", mock__entry_name(),
                 name ? name : code, why);
    } else {
        snprintf(told, sizeof told, "%s failed on the mock driver with %s%s%s%s",
                 mock__entry_name(), name ? name : code, text ? " (" : "", text ? text : "",
                 text ? ")" : "");
    }
    fn(told);
}

MOCK_EXPORT void cushim_mock_set_error_sink(cushim_mock_error_sink fn);
void cushim_mock_set_error_sink(cushim_mock_error_sink fn) {
    atomic_store_explicit(&sink, fn, memory_order_release);
}
