/* Kernels as they run: each execution is timed, told to the observer that a tracer registered
 * through the export cushim_mock_set_kernel_observer (cushim_mock.h), and moves the mock's
 * clock, which events read, by the time it took (or by set_launch_us's figure, when a test set
 * one). Everything here runs under the mock's lock, on the thread that runs the kernel: so once
 * the setter returned, the old observer is never called again. */
#include <time.h>

#include "mock.h"
#include "ptx.h"

static cushim_mock_kernel_observer observer; /* under the lock */
static void *observer_user;

static unsigned long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

void mock__observe_begin(mock_kernel_run *run) {
    run->instructions = mock__ptx_instructions();
    run->start_ns = now_ns();
}

void mock__observe_end(mock_kernel_run *run) {
    unsigned long long end = now_ns(), ns = end - run->start_ns;
    unsigned long long insts = mock__ptx_instructions() - run->instructions;
    /* The clock follows the interpretation time, unless a test fixed a time per launch. */
    mock__state.clock_ns += mock__state.launch_us_set ? mock__state.launch_us * 1000 : ns;
    if (observer != NULL) {
        observer(observer_user, run->name, run->grid, run->block, run->stream, run->start_ns, end,
                 insts);
    }
}

MOCK_EXPORT void cushim_mock_set_kernel_observer(cushim_mock_kernel_observer fn, void *user);
void cushim_mock_set_kernel_observer(cushim_mock_kernel_observer fn, void *user) {
    mock__lock();
    observer = fn;
    observer_user = user;
    mock__unlock();
}
