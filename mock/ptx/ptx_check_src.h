/* Internal to the executor: where a report or a fault happened, in words (ptx_check_src.c). */
#ifndef CUSHIM_MOCK_PTX_CHECK_SRC_H
#define CUSHIM_MOCK_PTX_CHECK_SRC_H

#include "ptx_run.h"

/* The source file (its last path component) and line of PTX line `line` of module m, from the
 * nearest `.loc` before it and the `.file` it names (nvcc -lineinfo or -G): false when the PTX
 * carries none. Read from the module's text, only when a report or fault is written. */
bool ptx__src_line(const mock_ptx_module *m, unsigned line, char *file, size_t filelen,
                   unsigned *src);

/* "kernel K, block (x,y,z), thread (x,y,z), PTX line N (warp W, file.cu:L): " into buf (t NULL:
 * the kernel and block only); the characters written, as snprintf. */
int ptx__where_text(char *buf, size_t len, const pblock *b, const pthr *t, const pinst *in);

#endif
