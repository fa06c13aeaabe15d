/* Runs the API fuzzer's harness once on each input it is given, without libFuzzer: every file
 * of each directory argument (in name order), and each file argument. Built in every build
 * with tests, with any compiler, so that the seed corpus is replayed under the sanitizer and
 * valgrind runs as well. A broken invariant aborts; an argument that cannot be read, or no
 * input at all, is a failure too, so that a missing corpus is not a silent pass.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static bool replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return false;
    }
    uint8_t *data = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *bigger = realloc(data, cap);
            if (bigger == NULL) {
                fprintf(stderr, "replay: %s: out of memory\n", path);
                free(data);
                fclose(f);
                return false;
            }
            data = bigger;
        }
        size_t got = fread(data + size, 1, cap - size, f);
        size += got;
        if (got == 0) break;
    }
    bool ok = !ferror(f);
    fclose(f);
    if (!ok) {
        fprintf(stderr, "replay: %s: read error\n", path);
    } else {
        printf("replay: %s (%zu bytes)\n", path, size);
        fflush(stdout); /* so that the last input named is the one that aborted */
        LLVMFuzzerTestOneInput(data, size);
    }
    free(data);
    return ok;
}

static int skip_dots(const struct dirent *e) { return e->d_name[0] != '.'; }

/* Replays a directory's files; returns how many, or -1 when one could not be read. */
static int replay_dir(const char *dir) {
    struct dirent **list = NULL;
    int n = scandir(dir, &list, skip_dots, alphasort);
    if (n < 0) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    int done = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, list[i]->d_name);
        struct stat st;
        if (done >= 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            done = replay_file(path) ? done + 1 : -1;
        }
        free(list[i]);
    }
    free(list);
    return done;
}

int main(int argc, char **argv) {
    LLVMFuzzerInitialize(&argc, &argv);
    int total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        int n;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            n = replay_dir(argv[i]);
        } else {
            n = replay_file(argv[i]) ? 1 : -1;
        }
        if (n < 0) return 1;
        total += n;
    }
    if (total == 0) {
        fprintf(stderr, "replay: no inputs (usage: %s DIR-OR-FILE...)\n", argv[0]);
        return 1;
    }
    printf("replay: %d inputs, no invariant broken\n", total);
    return 0;
}
