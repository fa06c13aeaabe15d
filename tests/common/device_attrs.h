/* The enumerators of CUdevice_attribute, read from the cuda.h the test was built against
 * (CUDA_INCLUDE_DIR), with their names: a test that walks them covers every attribute of that
 * toolkit, and fails on one a new header adds. Shared by the mock's device test and the GPU's
 * profile test. */
#ifndef CUSHIM_DEVICE_ATTRS_H
#define CUSHIM_DEVICE_ATTRS_H

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CUDA_INCLUDE_DIR
#error "CUDA_INCLUDE_DIR must name the directory of the cuda.h the test was built against"
#endif

typedef struct device_attr {
    int value;
    char name[80]; /* without CU_DEVICE_ATTRIBUTE_ */
} device_attr;

/* Fills out with the enumerators spelt with a number (an alias spelt by name is left out, as is
 * CU_DEVICE_ATTRIBUTE_MAX), at most cap; returns how many, -1 when cuda.h cannot be read. */
static inline int header_device_attributes(device_attr *out, int cap) {
    static const char prefix[] = "CU_DEVICE_ATTRIBUTE_";
    FILE *f = fopen(CUDA_INCLUDE_DIR "/cuda.h", "r");
    if (f == NULL) return -1;
    char line[1024];
    int n = 0;
    bool in = false;
    while (n < cap && fgets(line, sizeof line, f)) {
        if (strstr(line, "typedef enum CUdevice_attribute_enum")) in = true;
        if (!in) continue;
        if (strstr(line, "} CUdevice_attribute;")) break;
        const char *p = strstr(line, prefix);
        const char *eq = p ? strchr(p, '=') : NULL;
        if (eq == NULL || strncmp(p, "CU_DEVICE_ATTRIBUTE_MAX ", 24) == 0) continue;
        while (*++eq == ' ') {
        }
        if (!isdigit((unsigned char)*eq)) continue;
        const char *name = p + sizeof prefix - 1;
        size_t len = strcspn(name, " =");
        if (len >= sizeof out[n].name) len = sizeof out[n].name - 1;
        memcpy(out[n].name, name, len);
        out[n].name[len] = '\0';
        out[n++].value = atoi(eq);
    }
    fclose(f);
    return n;
}

#endif
