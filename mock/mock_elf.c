/* Cubins: ELF64 images for EM_CUDA. Kernels are the STT_FUNC symbols defined in `.text.<name>`
 * sections; their parameters come from the EIATTR_KPARAM_INFO records of `.nv.info.<name>`;
 * variables are the STT_OBJECT symbols of the `.nv.global` and `.nv.constant*` sections. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_image.h"

#define EM_CUDA_ 190
#define ELF_HEADER 64
#define SECTION_HEADER 64
#define SYMBOL 24
#define SHT_SYMTAB_ 2
#define STT_OBJECT_ 1
#define STT_FUNC_ 2
#define STO_CUDA_ENTRY_ 0x10
/* .nv.info records: a format byte, an attribute byte, then a value. */
#define EIFMT_SVAL 4 /* a 16-bit size and that many bytes; the others hold 2 bytes */
#define EIATTR_KPARAM_INFO 0x17
#define EIATTR_CBANK_PARAM_SIZE 0x19

static uint64_t rd(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

typedef struct elf {
    const unsigned char *p;
    size_t size;
    uint64_t shoff;
    unsigned shnum, shstrndx;
} elf;

static const unsigned char *section(const elf *e, unsigned i) {
    return e->p + e->shoff + (uint64_t)i * SECTION_HEADER;
}

/* Whether section i's bytes lie inside the image. */
static bool in_image(const elf *e, unsigned i) {
    const unsigned char *s = section(e, i);
    uint64_t off = rd(s + 24, 8), size = rd(s + 32, 8);
    return rd(s + 4, 4) == 8 /* SHT_NOBITS */ || (off <= e->size && size <= e->size - off);
}

/* The name of section i, or "" when it cannot be read. */
static const char *section_name(const elf *e, unsigned i) {
    if (e->shstrndx >= e->shnum || i >= e->shnum || !in_image(e, e->shstrndx)) return "";
    const unsigned char *str = section(e, e->shstrndx);
    uint64_t off = rd(str + 24, 8), size = rd(str + 32, 8), name = rd(section(e, i), 4);
    if (name >= size || memchr(e->p + off + name, '\0', size - name) == NULL) return "";
    return (const char *)e->p + off + name;
}

static long find_section(const elf *e, const char *prefix, const char *name) {
    size_t pl = strlen(prefix);
    for (unsigned i = 1; i < e->shnum; i++) {
        const char *n = section_name(e, i);
        if (strncmp(n, prefix, pl) == 0 && strcmp(n + pl, name) == 0) return i;
    }
    return -1;
}

/* The parameters of kernel `name` from its .nv.info section: their count, or -1 unknown. */
static int kernel_params(const elf *e, const char *name, mock_param *list, int cap) {
    long i = find_section(e, ".nv.info.", name);
    if (i < 0 || !in_image(e, (unsigned)i)) return -1;
    const unsigned char *s = section(e, (unsigned)i);
    const unsigned char *p = e->p + rd(s + 24, 8), *end = p + rd(s + 32, 8);
    int n = 0, seen = 0;
    long cbank_size = -1;
    while (end - p >= 4) {
        unsigned fmt = p[0], attr = p[1];
        size_t len = fmt == EIFMT_SVAL ? 4 + (size_t)rd(p + 2, 2) : 4;
        if ((size_t)(end - p) < len) return -1;
        if (fmt == EIFMT_SVAL && attr == EIATTR_KPARAM_INFO && len >= 16) {
            /* u32 index, u16 ordinal, u16 offset, u32 flags holding the size in bits 18-31 */
            unsigned ordinal = (unsigned)rd(p + 8, 2), offset = (unsigned)rd(p + 10, 2);
            unsigned size = (unsigned)(rd(p + 12, 4) >> 18) & 0x3fff;
            if (ordinal >= (unsigned)cap) return -1;
            list[ordinal] = (mock_param){offset, size};
            if ((int)ordinal + 1 > n) n = (int)ordinal + 1;
            seen++;
        } else if (fmt != EIFMT_SVAL && attr == EIATTR_CBANK_PARAM_SIZE) {
            cbank_size = (long)rd(p + 2, 2);
        }
        p += len;
    }
    if (seen == 0) return cbank_size == 0 ? 0 : -1;
    return seen == n ? n : -1; /* an ordinal missing: the records are not understood */
}

/* The header at p: the image's size from its section headers, 0 when it is not a cubin. With
 * len 0, each identification byte is checked before the next is read, so that a short buffer
 * is refused before the mock reads past it. */
static size_t header(const unsigned char *p, size_t len, elf *e) {
    static const unsigned char ident[3] = {2 /* 64-bit */, 1 /* LSB */, 1 /* version */};
    for (int i = 0; i < 3; i++) {
        if (p[4 + i] != ident[i]) return 0;
    }
    if (p[7] != 0x33 && p[7] != 0x41) return 0; /* ELFOSABI_CUDA, old and new */
    if (len != 0 && len < ELF_HEADER) return 0;
    if (rd(p + 18, 2) != EM_CUDA_ || rd(p + 58, 2) != SECTION_HEADER) return 0;
    e->p = p;
    e->shoff = rd(p + 40, 8);
    e->shnum = (unsigned)rd(p + 60, 2);
    e->shstrndx = (unsigned)rd(p + 62, 2);
    if (e->shoff < ELF_HEADER || e->shoff > (1ull << 32)) return 0;
    uint64_t end = e->shoff + (uint64_t)e->shnum * SECTION_HEADER;
    if (len != 0 && end > len) return 0;
    return (size_t)(len ? len : end);
}

size_t mock__elf_extent(const unsigned char *p, size_t len) {
    elf e;
    if (header(p, len, &e) == 0) return 0;
    return (size_t)(e.shoff + (uint64_t)e.shnum * SECTION_HEADER);
}

CUresult mock__elf_read(const unsigned char *p, size_t len, mock_image *img) {
    elf e;
    e.size = header(p, len, &e);
    if (e.size == 0) return CUDA_ERROR_INVALID_IMAGE;
    img->has_sass = true;
    /* The sm_XX in e_flags: bits 8-15 from ELF ABI 0x41 (CUDA 12.8 on), bits 0-7 before. */
    uint64_t flags = rd(p + 48, 4);
    img->sass_arch = (int)(p[7] == 0x41 ? (flags >> 8) & 0xff : flags & 0xff);
    if (img->nsass_archs < 16) img->sass_archs[img->nsass_archs++] = (unsigned char)img->sass_arch;
    long symtab = -1;
    for (unsigned i = 1; i < e.shnum; i++) {
        if (rd(section(&e, i) + 4, 4) == SHT_SYMTAB_) symtab = i;
    }
    if (symtab < 0 || !in_image(&e, (unsigned)symtab)) return CUDA_ERROR_INVALID_IMAGE;
    const unsigned char *sh = section(&e, (unsigned)symtab);
    unsigned strtab = (unsigned)rd(sh + 40, 4);
    if (strtab >= e.shnum || !in_image(&e, strtab)) return CUDA_ERROR_INVALID_IMAGE;
    const unsigned char *syms = e.p + rd(sh + 24, 8);
    size_t nsyms = (size_t)(rd(sh + 32, 8) / SYMBOL);
    const char *str = (const char *)e.p + rd(section(&e, strtab) + 24, 8);
    uint64_t strsize = rd(section(&e, strtab) + 32, 8);

    /* Kernels carry STO_CUDA_ENTRY; an image where no function does is read by sections. */
    bool entry_flags = false;
    for (size_t i = 0; i < nsyms; i++) {
        const unsigned char *s = syms + i * SYMBOL;
        if ((s[4] & 0xf) == STT_FUNC_ && (s[5] & STO_CUDA_ENTRY_)) entry_flags = true;
    }
    for (size_t i = 0; i < nsyms; i++) {
        const unsigned char *s = syms + i * SYMBOL;
        uint64_t name_off = rd(s, 4);
        unsigned type = s[4] & 0xf, shndx = (unsigned)rd(s + 6, 2);
        if (name_off >= strsize || shndx == 0 || shndx >= e.shnum) continue;
        const char *name = str + name_off;
        size_t nlen = strnlen(name, (size_t)(strsize - name_off));
        if (nlen == 0 || nlen == strsize - name_off) continue;
        const char *sec = section_name(&e, shndx);
        if (type == STT_FUNC_ && strncmp(sec, ".text.", 6) == 0 && strcmp(sec + 6, name) == 0 &&
            (!entry_flags || (s[5] & STO_CUDA_ENTRY_))) {
            mock_param list[256];
            int n = kernel_params(&e, name, list, 256);
            if (!mock__image_add_entry(img, name, nlen, n, n > 0 ? list : NULL)) {
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
        } else if (type == STT_OBJECT_ &&
                   (strncmp(sec, ".nv.global", 10) == 0 || strncmp(sec, ".nv.constant", 12) == 0)) {
            if (!mock__image_add_global(img, name, nlen, (size_t)rd(s + 16, 8))) {
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
        }
    }
    /* A cubin that cushim's NVRTC layer made holds no PTX: the program's, if it attached it. */
    const char *ptx = mock__attached_ptx(p, (size_t)(e.shoff + (uint64_t)e.shnum * SECTION_HEADER));
    const char *log;
    return ptx != NULL ? mock__ptx_read(ptx, img, &log) : CUDA_SUCCESS;
}
