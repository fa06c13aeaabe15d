/* Says whether cushim honoured CUSHIM_DRIVER in this process, for test_secure_env.c.
 *   secure_probe secure|plain MOCK
 * MOCK is the path CUSHIM_DRIVER names. `secure`: the process must be in secure-execution mode
 * (AT_SECURE, as a setuid program is) and cushim must not have loaded MOCK, nor named it. `plain`:
 * the control, not secure, and cushim must have loaded MOCK. Prints what it saw; exits 0 when it
 * is as expected, 1 when not, 3 when `secure` was asked of a process that is not secure (the
 * setuid bit did not take: the test skips).
 *
 * Linked statically with cushim: a setuid program ignores LD_LIBRARY_PATH and $ORIGIN, and a
 * copy of it moved elsewhere would not find libcushim.so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "cushim.h"
#include "common/driver_status.h"

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "secure") != 0 && strcmp(argv[1], "plain") != 0)) {
        fprintf(stderr, "usage: %s secure|plain MOCK\n", argv[0]);
        return 2;
    }
    bool want_secure = strcmp(argv[1], "secure") == 0;
    const char *mock = argv[2];
    unsigned long secure = getauxval(AT_SECURE);
    /* getenv sees the variable either way: what differs is whether cushim may read it. */
    const char *env = getenv("CUSHIM_DRIVER");
    CUresult r = cushim_init();
    const cushim_driver_info *info = cushim_driver_state();
    bool loaded_mock = info->path != NULL && strcmp(info->path, mock) == 0;
    bool named_mock = strstr(info->message, mock) != NULL;
    printf("AT_SECURE=%lu uid=%d euid=%d\n", secure, (int)getuid(), (int)geteuid());
    printf("CUSHIM_DRIVER=%s\n", env ? env : "(unset)");
    printf("status=%s result=%s path=%s\n", driver_status_token(info->status), cushim_error_name(r),
           info->path ? info->path : "(none)");
    printf("message=%s\n", info->message);

    int bad = 0;
    if (env == NULL || strcmp(env, mock) != 0) {
        printf("FAIL: CUSHIM_DRIVER is not %s in this process\n", mock);
        bad = 1;
    }
    if (want_secure) {
        if (secure == 0) {
            printf("SKIP: not in secure-execution mode (euid %d, uid %d): the setuid bit had no "
                   "effect here\n",
                   (int)geteuid(), (int)getuid());
            return bad ? 1 : 3;
        }
        if (loaded_mock || named_mock) {
            printf("FAIL: cushim %s CUSHIM_DRIVER in a secure-execution process\n",
                   loaded_mock ? "loaded" : "tried");
            bad = 1;
        }
    } else {
        if (secure != 0) {
            printf("FAIL: the control is in secure-execution mode\n");
            bad = 1;
        }
        if (info->status != CUSHIM_DRIVER_LOADED || !loaded_mock || !named_mock) {
            printf("FAIL: the control did not load %s\n", mock);
            bad = 1;
        }
    }
    if (!bad) printf("OK\n");
    return bad;
}
