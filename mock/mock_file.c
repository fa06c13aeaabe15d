/* Image files for cuModuleLoad, cuLibraryLoadFromFile and cuLinkAddFile, checked as cushim's
 * cushim_module_load_file checks them: only a regular file is opened for good (a FIFO with no
 * writer would block the open forever, and /dev/zero would be read until memory runs out), and
 * only what its size says is read, up to MOCK_MAX_IMAGE_FILE bytes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mock.h"

/* Far above any module nvcc writes, far below what a test machine can hold twice. */
#define MOCK_MAX_IMAGE_FILE (1ull << 30)

static const char *file_kind(mode_t m) {
    return S_ISFIFO(m)                ? "a FIFO (opening one with no writer would block)"
           : S_ISDIR(m)               ? "a directory"
           : S_ISCHR(m) || S_ISBLK(m) ? "a device"
                                      : "not a regular file";
}

char *mock__read_image_file(const char *entry, const char *path, size_t *len, CUresult *r) {
    *r = CUDA_ERROR_FILE_NOT_FOUND;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        mock__why("%s: '%s' is %s: an image is read from a regular file only", entry, path,
                  file_kind(st.st_mode));
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        mock__why("%s: cannot open '%s': %s", entry, path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* swapped after the stat */
        mock__why("%s: '%s' is %s: an image is read from a regular file only", entry, path,
                  file_kind(st.st_mode));
    } else if ((unsigned long long)st.st_size > MOCK_MAX_IMAGE_FILE) {
        *r = CUDA_ERROR_INVALID_IMAGE;
        mock__why("%s: '%s' holds %lld bytes, more than the %llu an image may have", entry, path,
                  (long long)st.st_size, MOCK_MAX_IMAGE_FILE);
    } else if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
        *r = CUDA_ERROR_OUT_OF_MEMORY;
    } else {
        size_t got = 0, want = (size_t)st.st_size;
        while (got < want) {
            ssize_t n = read(fd, buf + got, want - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break; /* cut short while read: what was there is the image */
            got += (size_t)n;
        }
        buf[got] = '\0';
        *len = got;
        *r = CUDA_SUCCESS;
    }
    close(fd);
    return buf;
}
