/* The look at a candidate library before dlopen (see candidate.h). */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader/candidate.h"

bool cushim__safe_to_open(const char *path, char *why, size_t n) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return true; /* dlopen will say why, in its words */
    bool ok = true;
    struct stat st;
    Elf64_Ehdr eh;
    bool have_stat = fstat(fd, &st) == 0; /* without it dlopen fails too, and says why */
    if (have_stat && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
                      S_ISSOCK(st.st_mode))) {
        snprintf(why, n, "%s (not a regular file, so not a shared library); ", path);
        ok = false;
    } else if (have_stat && S_ISREG(st.st_mode) &&
               pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
               memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
               eh.e_phentsize == sizeof(Elf64_Phdr)) {
        for (unsigned i = 0; i < eh.e_phnum && ok; i++) {
            Elf64_Phdr ph;
            off_t at = (off_t)(eh.e_phoff + (Elf64_Off)i * sizeof ph);
            if (pread(fd, &ph, sizeof ph, at) != (ssize_t)sizeof ph) break; /* dlopen's to say */
            if (ph.p_type == PT_LOAD && (ph.p_offset > (Elf64_Off)st.st_size ||
                                         ph.p_filesz > (Elf64_Off)st.st_size - ph.p_offset)) {
                snprintf(why, n,
                         "%s (cut short: a segment ends at byte %llu of a %lld-byte file); ", path,
                         (unsigned long long)(ph.p_offset + ph.p_filesz), (long long)st.st_size);
                ok = false;
            }
        }
    }
    close(fd);
    return ok;
}
