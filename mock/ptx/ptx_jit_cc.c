/* The compiling tier's C compiled and loaded: the host's compiler (CUSHIM_MOCK_JIT_CC, else `cc`
 * on PATH) run by posix_spawn (no shell, no signal handler touched) into a private temporary
 * folder, the library kept in a disk cache (CUSHIM_MOCK_JIT_CACHE, else
 * $XDG_CACHE_HOME/cushim-mock-jit or ~/.cache/cushim-mock-jit) under a hash of the source, the
 * compiler's identity and the flags. A cached library is loaded only when it is a regular file
 * of this user that no one else may write, in a folder of the same kind, and it must then carry
 * the full key it was built for; anything else is built again. */
/* First: <fcntl.h> defines O_ASYNC, one of the interpreter's opcodes. */
#include "ptx_jit_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define ABI "cushim-pjit-1"

static const char *compiler(void) {
    const char *e = getenv("CUSHIM_MOCK_JIT_CC");
    return e != NULL && *e != 0 ? e : "cc";
}

static const char *flags(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "-O3 -fPIC -shared -ffp-contract=off -fno-strict-aliasing -w "
               "-mavx2 -mfma";
#endif
    return "-O3 -fPIC -shared -ffp-contract=off -fno-strict-aliasing -w";
}

/* Runs argv with stdout and stderr into the file `log`: true when it exited 0. */
static bool spawn(char *const argv[], const char *log) {
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) return false;
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return false;
    int status = 0;
    pid_t got;
    while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    /* A process that ignores SIGCHLD has its children reaped for it: the output speaks. */
    if (got < 0) return errno == ECHILD;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The first line of a file into out. */
static void first_line(const char *path, char *out, size_t n) {
    FILE *f = fopen(path, "r");
    out[0] = 0;
    if (f == NULL) return;
    if (fgets(out, (int)n, f) == NULL) out[0] = 0;
    out[strcspn(out, "\n")] = 0;
    fclose(f);
}

static bool write_file(const char *path, const char *a, const char *b) {
    FILE *f = fopen(path, "w");
    if (f == NULL) return false;
    bool ok = fputs(a, f) >= 0 && fputs(b, f) >= 0;
    return fclose(f) == 0 && ok;
}

static uint64_t fnv(uint64_t h, const char *s) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* A private temporary folder under dir (NULL: TMPDIR or /tmp) in out. */
static bool temp_dir(const char *dir, char *out, size_t n) {
    if (dir == NULL) dir = getenv("TMPDIR");
    if (dir == NULL || *dir == 0) dir = "/tmp";
    if ((size_t)snprintf(out, n, "%s/cushim-jit-XXXXXX", dir) >= n) return false;
    return mkdtemp(out) != NULL;
}

/* The compiler's file (found on PATH where the name has no slash) as size, time and inode, so
 * that a compiler replaced, or a wrapper script edited, is another key. */
static void compiler_file(const char *cc, char *out, size_t n) {
    struct stat st;
    char path[1024];
    bool found = false;
    if (strchr(cc, '/') != NULL) {
        found = stat(cc, &st) == 0;
    } else {
        const char *p = getenv("PATH");
        while (p != NULL && *p != 0 && !found) {
            size_t len = strcspn(p, ":");
            if ((size_t)snprintf(path, sizeof path, "%.*s/%s", (int)len, p, cc) < sizeof path)
                found = stat(path, &st) == 0 && S_ISREG(st.st_mode);
            p += len + (p[len] == ':');
        }
    }
    if (found)
        snprintf(out, n, "%lld %lld.%09ld %llu", (long long)st.st_size,
                 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (unsigned long long)st.st_ino);
    else
        snprintf(out, n, "?");
}

/* The compiler's --version line, once per process (and per compiler named). */
static pthread_mutex_t id_lock = PTHREAD_MUTEX_INITIALIZER;
static char id_cc[256], id_text[256];

static bool compiler_id(const char *cc, char *out, size_t n) {
    pthread_mutex_lock(&id_lock);
    bool ok = id_text[0] != 0 && strcmp(id_cc, cc) == 0;
    if (!ok) {
        char tmp[512], log[600];
        if (temp_dir(NULL, tmp, sizeof tmp)) {
            snprintf(log, sizeof log, "%s/version", tmp);
            char *argv[] = {(char *)cc, "--version", NULL};
            if (spawn(argv, log)) first_line(log, id_text, sizeof id_text);
            unlink(log);
            rmdir(tmp);
            snprintf(id_cc, sizeof id_cc, "%s", cc);
            ok = id_text[0] != 0;
        }
    }
    if (ok) snprintf(out, n, "%s", id_text);
    pthread_mutex_unlock(&id_lock);
    return ok;
}

/* The cache folder (made, 0700), or false for none. */
static bool cache_dir(char *out, size_t n) {
    const char *e = getenv("CUSHIM_MOCK_JIT_CACHE");
    if (e != NULL && strcmp(e, "off") == 0) return false;
    if (e != NULL && *e != 0) {
        if ((size_t)snprintf(out, n, "%s", e) >= n) return false;
    } else {
        const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
        int k = x != NULL && *x == '/'   ? snprintf(out, n, "%s", x)
                : h != NULL && *h == '/' ? snprintf(out, n, "%s/.cache", h)
                                         : -1;
        if (k < 0 || (size_t)k >= n) return false;
        mkdir(out, 0700);
        size_t len = strlen(out);
        if ((size_t)snprintf(out + len, n - len, "/cushim-mock-jit") >= n - len) return false;
    }
    mkdir(out, 0700);
    struct stat st;
    return stat(out, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
           (st.st_mode & 022) == 0;
}

/* A library at path built for key: loaded, its function in *fn; NULL when it is not one. */
static void *load(const char *path, const char *key, pjit_fn *fn) {
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 022) != 0)
        return NULL;
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL) return NULL;
    const char *k = dlsym(dl, "pjit_key");
    void *f = dlsym(dl, "pjit_run");
    if (k == NULL || f == NULL || strcmp(k, key) != 0) {
        dlclose(dl);
        return NULL;
    }
    memcpy(fn, &f, sizeof f);
    return dl;
}

pjit_fn ptx__jit_build(const char *src, void **dl, char *why, size_t whylen) {
    const char *cc = compiler(), *fl = flags();
    char id[256], key[160], dir[512], tmp[600], cpath[700], opath[700], log[700], final[700];
    if (!compiler_id(cc, id, sizeof id)) {
        snprintf(why, whylen, "no working C compiler (%s; CUSHIM_MOCK_JIT_CC names one)", cc);
        return NULL;
    }
    uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
    char file[128];
    compiler_file(cc, file, sizeof file);
    const char *parts[] = {ABI, fl, cc, id, file, src};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        h1 = fnv(fnv(h1, parts[i]), "\n");
        h2 = fnv(fnv(h2, "\n"), parts[i]);
    }
    snprintf(key, sizeof key, "%s-%016llx%016llx", ABI, (unsigned long long)h1,
             (unsigned long long)h2);
    bool cached = cache_dir(dir, sizeof dir);
    pjit_fn fn = NULL;
    if (cached) {
        snprintf(final, sizeof final, "%s/%016llx%016llx.so", dir, (unsigned long long)h1,
                 (unsigned long long)h2);
        if ((*dl = load(final, key, &fn)) != NULL) return fn;
    }
    if (!temp_dir(cached ? dir : NULL, tmp, sizeof tmp)) {
        snprintf(why, whylen, "no temporary folder for the compiler");
        return NULL;
    }
    snprintf(cpath, sizeof cpath, "%s/k.c", tmp);
    snprintf(opath, sizeof opath, "%s/k.so", tmp);
    snprintf(log, sizeof log, "%s/log", tmp);
    char tail[256];
    snprintf(tail, sizeof tail, "const char pjit_key[] = \"%s\";\n", key);
    bool ok = write_file(cpath, src, tail);
    if (ok) {
        /* The flags as separate arguments. */
        char fcopy[256], *argv[24];
        int na = 0;
        snprintf(fcopy, sizeof fcopy, "%s", fl);
        argv[na++] = (char *)cc;
        for (char *save = NULL, *t = strtok_r(fcopy, " ", &save); t != NULL && na < 18;
             t = strtok_r(NULL, " ", &save))
            argv[na++] = t;
        argv[na++] = "-o";
        argv[na++] = opath;
        argv[na++] = cpath;
        argv[na] = NULL;
        ok = spawn(argv, log);
        if (!ok) {
            char line[200];
            first_line(log, line, sizeof line);
            snprintf(why, whylen, "%s failed: %s", cc, line[0] ? line : "no output");
        }
    } else {
        snprintf(why, whylen, "cannot write the source in %s", tmp);
    }
    if (ok && cached && rename(opath, final) == 0) {
        *dl = load(final, key, &fn);
    } else if (ok) {
        *dl = load(opath, key, &fn);
    }
    if (ok && *dl == NULL) snprintf(why, whylen, "the compiled library did not load");
    unlink(cpath);
    unlink(opath);
    unlink(log);
    rmdir(tmp);
    return *dl != NULL ? fn : NULL;
}
