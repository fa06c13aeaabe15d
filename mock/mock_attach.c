/* PTX attached to a cubin (issue 28, item 3): a cubin that NVRTC compiled for a real
 * architecture (-arch=sm_90) carries SASS only, which the mock cannot run. cushim's NVRTC layer
 * hands the mock the program's PTX beside such a cubin through the seam below; a cubin loaded
 * later with the same bytes is then read with that PTX too, and its kernels are interpreted.
 * The last MOCK_ATTACH_KEEP pairs are kept, each under a hash of the cubin's bytes up to the end
 * of its section headers (NVRTC writes its program headers after them). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_image.h"

#define MOCK_ATTACH_KEEP 64u

typedef struct attached {
    uint64_t hash;
    size_t size;
    char *ptx;
} attached;

static attached ring[MOCK_ATTACH_KEEP];
static size_t next;

static uint64_t fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

MOCK_EXPORT void cushim_mock_attach_ptx(const void *cubin, size_t size, const char *ptx);
void cushim_mock_attach_ptx(const void *cubin, size_t size, const char *ptx) {
    if (cubin == NULL || size == 0 || ptx == NULL) return;
    size = mock__elf_extent(cubin, size); /* the bytes the ELF reader identifies it by */
    if (size == 0) return;
    char *copy = malloc(strlen(ptx) + 1);
    if (copy == NULL) return; /* the cubin then loads as SASS alone, as before */
    strcpy(copy, ptx);
    uint64_t h = fnv1a(cubin, size);
    mock__lock();
    attached *a = &ring[next++ % MOCK_ATTACH_KEEP];
    for (size_t i = 0; i < MOCK_ATTACH_KEEP; i++) { /* the same cubin again: one entry */
        if (ring[i].ptx != NULL && ring[i].hash == h && ring[i].size == size) a = &ring[i];
    }
    free(a->ptx);
    *a = (attached){h, size, copy};
    mock__unlock();
}

const char *mock__attached_ptx(const unsigned char *cubin, size_t size) {
    uint64_t h = 0;
    for (size_t i = 0; i < MOCK_ATTACH_KEEP; i++) {
        if (ring[i].ptx == NULL || ring[i].size != size) continue;
        if (h == 0) h = fnv1a(cubin, size);
        if (ring[i].hash == h) return ring[i].ptx;
    }
    return NULL;
}

void mock__attach_reset(void) {
    for (size_t i = 0; i < MOCK_ATTACH_KEEP; i++) {
        free(ring[i].ptx);
        ring[i] = (attached){0};
    }
    next = 0;
}
