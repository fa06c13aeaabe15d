/* The control functions of execution (cushim_mock.h, after "Execution: ..."). */
#include <stdio.h>
#include <string.h>

#include "mock.h"
#include "ptx.h"

static void ctl_register_kernel(const char *name, cushim_mock_kernel_fn fn) {
    mock__lock();
    mock__register_kernel(name, fn);
    mock__unlock();
}

static int ctl_host_kernel_runs(const char *name) {
    mock__lock();
    int n = mock__kernel_runs(name);
    mock__unlock();
    return n;
}

static void ctl_fail_next_jit(const char *log) {
    mock__lock();
    mock__state.jit_fail_armed = log != NULL;
    snprintf(mock__state.jit_fail_log, sizeof mock__state.jit_fail_log, "%s", log ? log : "");
    mock__unlock();
}

static void ctl_set_noop_kernels(bool on) {
    mock__lock();
    mock__state.noop_kernels = on;
    mock__unlock();
}

static const char *ctl_kernel_error(void) {
    static char copy[sizeof mock__state.kernel_error];
    mock__lock();
    memcpy(copy, mock__state.kernel_error, sizeof copy);
    mock__unlock();
    return copy;
}

static unsigned long long ctl_ptx_instructions(void) { return mock__ptx_instructions(); }

/* The same, by name, for a benchmark that finds it with dlsym. */
MOCK_EXPORT unsigned long long cushim_mock_ptx_instructions(void);
unsigned long long cushim_mock_ptx_instructions(void) { return mock__ptx_instructions(); }

void mock__exec_api(cushim_mock_api *api) {
    api->ptx_instructions = ctl_ptx_instructions;
    api->set_noop_kernels = ctl_set_noop_kernels;
    api->kernel_error = ctl_kernel_error;
    api->register_kernel = ctl_register_kernel;
    api->host_kernel_runs = ctl_host_kernel_runs;
    api->fail_next_jit = ctl_fail_next_jit;
}
