/* cushim-info's report as text: one "key: value" line each, values lined up, a block per
 * device. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/driver_status.h"
#include "common/hints.h"
#include "cushim.h"
#include "info-human.h"
#include "info-query.h"

/* The column where human-readable values start, so that the values of all blocks line up. */
#define KEY_WIDTH 36

/* Writes text with control characters replaced, so that a driver's odd name or a path with a
 * newline cannot break the layout or send escape sequences to the terminal. */
void info_put_clean(FILE *out, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, out);
    }
}

static void put_key(int indent, const char *key) {
    int len = printf("%*s%s:", indent, "", key);
    printf("%*s", len < KEY_WIDTH ? KEY_WIDTH - len : 1, "");
}

static void line(int indent, const char *key, const char *text) {
    put_key(indent, key);
    info_put_clean(stdout, text);
    fputc('\n', stdout);
}

CUSHIM__PRINTF(3, 4)
static void linef(int indent, const char *key, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    line(indent, key, buf);
}

static void format_bytes(char *buf, size_t n, long long v) {
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    double scaled = (double)v;
    int unit = -1;
    while (unit < 3 && scaled >= 1024.0) {
        scaled /= 1024.0;
        unit++;
    }
    if (unit < 0) {
        snprintf(buf, n, "%lld bytes", v);
    } else {
        snprintf(buf, n, "%lld bytes (%.1f %s)", v, scaled, units[unit]);
    }
}

static void format_value(char *buf, size_t n, const value *v, value_kind kind) {
    if (v->r != CUDA_SUCCESS) {
        snprintf(buf, n, "unknown (%s)", cushim_error_name(v->r));
        return;
    }
    switch (kind) {
    case KIND_BYTES: format_bytes(buf, n, v->v); return;
    case KIND_KHZ: snprintf(buf, n, "%.0f MHz (%lld kHz)", (double)v->v / 1000.0, v->v); return;
    case KIND_BOOL: snprintf(buf, n, "%s", v->v ? "yes" : "no"); return;
    case KIND_COUNT: break;
    }
    snprintf(buf, n, "%lld", v->v);
}

static void print_value(const char *key, const value *v, value_kind kind) {
    char buf[256];
    format_value(buf, sizeof buf, v, kind);
    line(2, key, buf);
}

static void print_text_or_unknown(const char *key, CUresult r, const char *text) {
    if (r == CUDA_SUCCESS) {
        line(2, key, text);
    } else {
        linef(2, key, "unknown (%s)", cushim_error_name(r));
    }
}

static void print_device_human(const device_report *d) {
    printf("\ndevice %d:\n", d->ordinal);
    if (d->get_r != CUDA_SUCCESS) {
        linef(2, "error", "cuDeviceGet failed with %s (%s)", cushim_error_name(d->get_r),
              cushim_error_string(d->get_r));
        return;
    }
    print_text_or_unknown("name", d->name_r, d->name);
    if (d->cc_major.r == CUDA_SUCCESS && d->cc_minor.r == CUDA_SUCCESS) {
        linef(2, "compute capability", "%lld.%lld", d->cc_major.v, d->cc_minor.v);
    } else {
        CUresult r = d->cc_major.r != CUDA_SUCCESS ? d->cc_major.r : d->cc_minor.r;
        linef(2, "compute capability", "unknown (%s)", cushim_error_name(r));
    }
    print_text_or_unknown("PCI bus id", d->pci_r, d->pci_bus_id);
    print_value("total memory", &d->total_mem, KIND_BYTES);
    for (size_t i = 0; i < ATTR_COUNT; i++) {
        print_value(attr_specs[i].label, &d->attrs[i], attr_specs[i].kind);
    }
}

static void print_driver_human(const cushim_driver_info *info) {
    char ver[32];
    line(0, "status", driver_status_words(info->status, ver, sizeof ver));
    linef(0, "result", "%s", cushim_error_name(info->result));
    line(0, "message", info->message ? info->message : "");
    line(0, "library", info->path ? info->path : "none");
    if (format_version(ver, sizeof ver, info->driver_version)) {
        linef(0, "driver version", "%s (%d)", ver, info->driver_version);
    } else {
        line(0, "driver version", "none");
    }
    if (format_version(ver, sizeof ver, info->header_version)) {
        linef(0, "header version", "%s (%d)", ver, info->header_version);
    } else {
        linef(0, "header version", "unknown (%d)", info->header_version);
    }
    linef(0, "entries resolved", "%u of %u", info->entries_resolved, info->entries_total);
    int implemented, total;
    if (query_mock(info, &implemented, &total)) {
        linef(0, "mock driver", "%d of %d entries implemented (the rest answer %s)", implemented,
              total, "CUDA_ERROR_NOT_SUPPORTED");
    }
    line(0, "default stream", info->per_thread_stream ? "per-thread" : "legacy");
}

static void print_libs_human(void) {
    for (size_t i = 0; i < INFO_LIB_COUNT; i++) {
        const cushim_lib_info *l = cushim_lib_state(info_libs[i]);
        char key[64];
        snprintf(key, sizeof key, "%s", l->name);
        if (l->status == CUSHIM_LIB_LOADED) {
            linef(0, key, "loaded, %d.%d (headers %d.%d), %u of %u entries, %s", l->version_major,
                  l->version_minor, l->header_major, l->header_minor, l->entries_resolved,
                  l->entries_total, l->path);
        } else {
            char words[32];
            snprintf(words, sizeof words, "%s", lib_status_token(l->status));
            for (char *c = words; *c; c++) *c = *c == '_' ? ' ' : *c;
            linef(0, key, "%s: %s", words, l->message);
        }
    }
}

int info_run_human(const cushim_driver_info *info) {
    print_driver_human(info);
    print_libs_human();
    if (info->status != CUSHIM_DRIVER_LOADED) {
        char words[32];
        fflush(stdout);
        /* The reason is the report's "message" line: said once, not again here. */
        fprintf(stderr,
                "cushim-info: no usable CUDA driver (%s); the reason is on the message "
                "line above\n",
                driver_status_words(info->status, words, sizeof words));
        return INFO_RC_NO_DRIVER;
    }
    const cushim_driver_table *drv = cushim_driver();
    char why[512];
    int count = 0;
    bool listed = count_devices(drv, &count, why, sizeof why);
    linef(0, "devices", "%d", count);
    char cut[128];
    if (info_devices_cut(count, cut, sizeof cut)) linef(0, "listed", "%s", cut);
    int usable = 0;
    for (int i = 0; i < count && i < INFO_MAX_LISTED; i++) {
        device_report d;
        query_device(drv, i, &d);
        print_device_human(&d);
        usable += d.get_r == CUDA_SUCCESS;
    }
    if (listed && usable == 0) snprintf(why, sizeof why, "cuDeviceGet failed for every device");
    if (usable > 0) return INFO_RC_OK;
    fflush(stdout);
    fprintf(stderr, "cushim-info: no CUDA device: ");
    info_put_clean(stderr, why);
    fputc('\n', stderr);
    return INFO_RC_NO_DEVICE;
}
