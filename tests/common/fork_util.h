/* Shared by the fork tests (mock and GPU): run a function in a forked child under an alarm,
 * and check in the child without cmocka (its state is the parent's). Include after cmocka.h
 * and cushim.h. */
#ifndef CUSHIM_TEST_FORK_UTIL_H
#define CUSHIM_TEST_FORK_UTIL_H

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What every call answers in a child forked after cushim_init. */
#define FORKED(r) ((r) == CUDA_ERROR_NOT_INITIALIZED && strstr(cushim_last_error(), "forked"))

/* In a child: a failed check prints where and exits 1. */
#define CHILD_CHECK(cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "child: %s:%d: %s (last error: %s)\n", __FILE__, __LINE__, #cond,      \
                    cushim_last_error());                                                          \
            _exit(1);                                                                              \
        }                                                                                          \
    } while (0)

/* Runs child() in a forked child, killed by SIGALRM after `seconds`, and returns its exit
 * status; a signal (the alarm included) fails the test. */
static inline int run_child(void (*child)(void), unsigned seconds) {
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(seconds);
        child();
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status)) fail_msg("the child died of signal %d", WTERMSIG(status));
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

#endif
