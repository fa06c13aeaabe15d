/* The library that CUSHIM_MOCK_KERNELS names is looked at before dlopen, as cushim looks at
 * CUSHIM_DRIVER: dlopen blocks for good on a FIFO with no writer, reads a device without end,
 * and maps an ELF file cut short, whose process then dies of SIGBUS when a segment past the
 * end of the file is touched. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mock.h"

/* Whether every loaded segment of the ELF file on fd (header h, size bytes) lies inside it. */
static bool segments_inside(int fd, const Elf64_Ehdr *h, off_t size, char *why, size_t len) {
    for (unsigned i = 0; i < h->e_phnum; i++) {
        Elf64_Phdr ph;
        off_t at = (off_t)(h->e_phoff + (Elf64_Off)i * sizeof ph);
        if (pread(fd, &ph, sizeof ph, at) != (ssize_t)sizeof ph) {
            snprintf(why, len, "it is cut short: its program headers end past its %lld bytes",
                     (long long)size);
            return false;
        }
        if (ph.p_type == PT_LOAD &&
            (ph.p_offset > (Elf64_Off)size || ph.p_filesz > (Elf64_Off)size - ph.p_offset)) {
            snprintf(why, len,
                     "it is cut short: a segment ends at byte %llu of a file of %lld bytes",
                     (unsigned long long)(ph.p_offset + ph.p_filesz), (long long)size);
            return false;
        }
    }
    return true;
}

bool mock__library_file_ok(const char *path, char *why, size_t len) {
    if (path[0] != '/') {
        snprintf(why, len, "it is not an absolute path (the dynamic loader would search for it)");
        return false;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, len, "it cannot be opened: %s", strerror(errno));
        return false;
    }
    struct stat st;
    Elf64_Ehdr h;
    bool ok = false;
    if (fstat(fd, &st) != 0) {
        snprintf(why, len, "it cannot be examined: %s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(why, len, "it is not a regular file (%s)",
                 S_ISFIFO(st.st_mode)  ? "a FIFO"
                 : S_ISDIR(st.st_mode) ? "a directory"
                                       : "a device or socket");
    } else if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
               memcmp(h.e_ident, ELFMAG, SELFMAG) != 0) {
        snprintf(why, len, "it is not an ELF file");
    } else if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_phentsize != sizeof(Elf64_Phdr)) {
        snprintf(why, len, "it is not a 64-bit ELF shared library");
    } else {
        ok = segments_inside(fd, &h, st.st_size, why, len);
    }
    close(fd);
    return ok;
}
