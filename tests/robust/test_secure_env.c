/* CUSHIM_DRIVER is ignored in a secure-execution process (AT_SECURE, as a setuid program is).
 *   test_secure_env PROBE MOCK
 * Copies PROBE (secure_probe, with cushim linked in statically) and the mock driver MOCK into a
 * fresh directory, makes one copy of the probe setuid root, and runs both copies as the user
 * nobody with CUSHIM_DRIVER naming the mock's copy: the plain copy (the control) must load the
 * mock, the setuid one must not. The only difference between the two runs is the secure mode.
 *
 * Needs root, as CI has; exits 77 (skip) with the reason where the difference cannot be shown.
 * A C program rather than a script so that the valgrind setup, which wraps every test, checks
 * this code and not a shell's; the probes run unwrapped (valgrind does not follow exec). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define SKIP 77

static char dir[PATH_MAX];
static char driver[PATH_MAX], plain[PATH_MAX], setuid_copy[PATH_MAX];

static void cleanup(void) {
    if (dir[0] == '\0') return;
    unlink(driver);
    unlink(plain);
    unlink(setuid_copy);
    rmdir(dir);
}

static int skip(const char *why) {
    printf("SKIP: %s\n", why);
    cleanup();
    return SKIP;
}

static int fail(const char *what) {
    printf("FAIL: %s: %s\n", what, strerror(errno));
    cleanup();
    return 1;
}

static bool copy(const char *from, const char *to, mode_t mode) {
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) return false;
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    bool ok = out >= 0;
    char buf[65536];
    ssize_t n;
    while (ok && (n = read(in, buf, sizeof buf)) != 0) {
        ok = n > 0 && write(out, buf, (size_t)n) == n;
    }
    close(in);
    if (out >= 0 && close(out) != 0) ok = false;
    /* open() applies the umask; the mode must be exactly this. */
    return ok && chmod(to, mode) == 0;
}

/* A fresh directory that everyone may enter, on a file system that honours setuid bits. */
static bool make_dir(void) {
    const char *tmpdir = getenv("TMPDIR");
    const char *bases[] = {tmpdir ? tmpdir : "/tmp", "/tmp", "/var/tmp", "/dev/shm"};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        struct statvfs fs;
        if (statvfs(bases[i], &fs) != 0) continue;
        if (fs.f_flag & ST_NOSUID) {
            printf("%s is mounted nosuid\n", bases[i]);
            continue;
        }
        snprintf(dir, sizeof dir, "%s/cushim-secure.XXXXXX", bases[i]);
        if (mkdtemp(dir) != NULL && chmod(dir, 0755) == 0) return true;
        dir[0] = '\0';
    }
    return false;
}

/* path = dir/name; false when it does not fit. */
static bool in_dir(char path[PATH_MAX], const char *name) {
    int n = snprintf(path, PATH_MAX, "%s/%s", dir, name);
    return n > 0 && n < PATH_MAX;
}

/* Runs the probe as uid:gid with no supplementary groups; its exit status, or -1. */
static int run_as(uid_t uid, gid_t gid, const char *probe, const char *mode) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0) _exit(126);
        execl(probe, probe, mode, driver, (char *)NULL);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s PROBE MOCK\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (geteuid() != 0) return skip("not root: a setuid-root copy of the probe cannot be made");
    if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1) {
        return skip("no_new_privs is set on this process, so a setuid bit has no effect");
    }
    const struct passwd *nobody = getpwnam("nobody");
    if (nobody == NULL) return skip("there is no user nobody to run the probe as");
    if (nobody->pw_uid == 0) return skip("the user nobody is root here");
    uid_t uid = nobody->pw_uid;
    gid_t gid = nobody->pw_gid;
    if (!make_dir()) {
        return skip("no directory without nosuid could be made in $TMPDIR, /tmp, /var/tmp or "
                    "/dev/shm");
    }
    if (!in_dir(driver, "libcuda-mock.so") || !in_dir(plain, "probe-plain") ||
        !in_dir(setuid_copy, "probe-setuid")) {
        errno = ENAMETOOLONG;
        return fail(dir);
    }
    if (!copy(argv[2], driver, 0644)) return fail("copying the mock");
    if (!copy(argv[1], plain, 0755)) return fail("copying the probe");
    /* chown clears the setuid bit, so it comes first. */
    if (!copy(argv[1], setuid_copy, 0755) || chown(setuid_copy, 0, 0) != 0 ||
        chmod(setuid_copy, 04755) != 0) {
        return fail("making the setuid copy");
    }
    /* The same environment for both runs: secure mode does not remove this variable, cushim
     * must choose not to read it. */
    setenv("CUSHIM_DRIVER", driver, 1);

    printf("the control: a plain copy, run as nobody\n");
    int control = run_as(uid, gid, plain, "plain");
    printf("the same program, setuid root, run as nobody\n");
    int secure = run_as(uid, gid, setuid_copy, "secure");
    if (secure == 3) return skip("the setuid copy did not run in secure-execution mode");
    cleanup();
    if (control == 0 && secure == 0) {
        printf("PASS: CUSHIM_DRIVER is honoured without AT_SECURE and ignored with it\n");
        return 0;
    }
    printf("FAIL: the control exited %d, the setuid copy %d\n", control, secure);
    return 1;
}
