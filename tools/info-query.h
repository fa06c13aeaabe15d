/* cushim-info: what is asked of the driver about each device, kept as data for both outputs. */
#ifndef CUSHIM_TOOLS_INFO_QUERY_H
#define CUSHIM_TOOLS_INFO_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "cushim.h"

/* One integer the driver reported, or the code of the query that failed. */
typedef struct value {
    CUresult r;
    long long v;
} value;

typedef enum value_kind { KIND_COUNT, KIND_BYTES, KIND_KHZ, KIND_BOOL } value_kind;

typedef struct attr_spec {
    const char *label;
    const char *json_key;
    CUdevice_attribute attr;
    value_kind kind;
} attr_spec;

/* The plain device attributes, in print order. */
extern const attr_spec attr_specs[];
#define ATTR_COUNT 11 /* its rows; info-query.c checks the count */

/* Everything reported about one device. When get_r failed, nothing else was queried. */
typedef struct device_report {
    int ordinal;
    CUresult get_r;
    CUresult name_r;
    char name[256];
    CUresult pci_r;
    char pci_bus_id[64];
    value cc_major;
    value cc_minor;
    value total_mem;
    value attrs[ATTR_COUNT];
} device_report;

/* Everything about device `ordinal` into d; a query that fails leaves its code there. */
void query_device(const cushim_driver_table *drv, int ordinal, device_report *d);

/* Counts the devices. On failure, or with no device, writes the reason into why and returns
 * false: either way there is nothing to list. */
bool count_devices(const cushim_driver_table *drv, int *count, char *why, size_t n);

/* What cushim's mock driver implements, when the loaded driver is that mock (found by its
 * control API in the library already loaded, without loading anything): true with the counts,
 * false for any other driver or none. */
bool query_mock(const cushim_driver_info *info, int *implemented, int *total);

/* cushim-info's exit codes (its usage text says what each means). */
enum { INFO_RC_OK = 0, INFO_RC_NO_DRIVER = 1, INFO_RC_USAGE = 2, INFO_RC_NO_DEVICE = 3 };

/* The toolkit's libraries that cushim loads beside the driver; none is needed to run. */
#define INFO_LIB_COUNT 2
extern const cushim_lib info_libs[INFO_LIB_COUNT];
extern const char *const info_lib_keys[INFO_LIB_COUNT];

/* A driver may report any count (a broken one, 2147483647): only the first INFO_MAX_LISTED
 * devices are queried and written, and the output says so: true, with the sentence in buf,
 * when count is more. */
enum { INFO_MAX_LISTED = 64 };
bool info_devices_cut(int count, char *buf, size_t n);

/* CUDA encodes 13.0 as 13000 and 12.4 as 12040. Returns false for 0 (no driver). */
bool format_version(char *buf, size_t n, int v);

#endif
