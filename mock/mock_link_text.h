/* Internal to the mock driver: the inputs of a link and their joining into one PTX text
 * (mock_link_text.c), for cuLink* (mock_link.c). */
#ifndef CUSHIM_MOCK_LINK_TEXT_H
#define CUSHIM_MOCK_LINK_TEXT_H

#include <cuda.h>
#include <stddef.h>

typedef struct mock_link_inputs {
    char **texts; /* each input's PTX, NUL-terminated */
    size_t n, cap;
} mock_link_inputs;

/* Adds an input of `type` (PTX; a cubin or fatbin that carries PTX; a library, ignored) for a
 * device of compute capability cc. CUDA_ERROR_NOT_SUPPORTED (with the reason told) for what
 * the mock cannot link: a cubin without PTX, host objects, LTO IR;
 * CUDA_ERROR_INVALID_IMAGE for an image it cannot read, CUDA_ERROR_INVALID_VALUE for a type
 * cuda.h does not have. */
CUresult mock__link_add(mock_link_inputs *in, CUjitInputType type, const void *data, size_t size,
                        const char *name, int cc);
/* The joined text, malloc'd, in *out. CUDA_ERROR_INVALID_VALUE when nothing was added. */
CUresult mock__link_join(const mock_link_inputs *in, char **out);
void mock__link_inputs_free(mock_link_inputs *in);
/* Destroys every link state (reset). */
void mock__link_reset(void);

#endif
