/* cushim-info: prints the CUDA driver that cushim loads, its status, and each device.
 *
 * Usage: cushim-info [--json] [--help] [--version]
 *
 * Exit codes:
 *   0  a driver is loaded and it has at least one device;
 *   1  no usable driver: not found, NVIDIA's stub, too old, or cuInit failed (the reason is the
 *      "message" line of the report, or the JSON "message" with --json; stderr says which case
 *      it is in one line, without repeating the reason);
 *   2  bad usage, such as an unknown option;
 *   3  a driver is loaded but it has no device, or its devices could not be enumerated.
 *
 * A query that fails does not stop the program: the value is printed as "unknown" (null in
 * JSON), so that one attribute a driver lacks does not hide all the others.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/hints.h"
#include "cushim.h"
#include "common/driver_status.h"
#include "info-query.h"
#include "json-writer.h"

enum {
    RC_OK = 0,
    RC_NO_DRIVER = 1,
    RC_USAGE = 2,
    RC_NO_DEVICE = 3,
};

/* The column where human-readable values start, so that the values of all blocks line up. */
#define KEY_WIDTH 36

static const char usage_text[] =
    "Usage: cushim-info [--json] [--help] [--version]\n"
    "\n"
    "Prints the CUDA driver that cushim loads (its status, library, versions and resolved\n"
    "entries; on cushim's mock driver, how many entries it implements) and the properties\n"
    "of each device.\n"
    "\n"
    "Options:\n"
    "  --json      print one JSON object instead of text\n"
    "  -h, --help  print this help and exit\n"
    "  --version   print cushim-info's version, and the CUDA headers it was built with\n"
    "\n"
    "Environment:\n"
    "  CUSHIM_DRIVER  absolute path of the driver library to load, instead of searching\n"
    "  CUSHIM_LOG     cushim's log level on stderr: debug, info, warn (default), error, off\n"
    "\n"
    "Exit codes:\n"
    "  0  a driver is loaded and it has at least one device\n"
    "  1  no usable driver (not found, stub, too old, init failed); the reason is on the\n"
    "     \"message\" line, or in the JSON \"message\" with --json\n"
    "  2  bad usage, such as an unknown option\n"
    "  3  a driver is loaded but it has no device, or the devices could not be enumerated\n";

/* ------------------------------------------------------------------------------------------ */
/* Human-readable output                                                                      */
/* ------------------------------------------------------------------------------------------ */

/* Writes text with control characters replaced, so that a driver's odd name or a path with a
 * newline cannot break the layout or send escape sequences to the terminal. */
static void put_clean(FILE *out, const char *s) {
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
    put_clean(stdout, text);
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

/* The toolkit's libraries that cushim loads beside the driver; none is needed to run. */
static const cushim_lib libs[] = {CUSHIM_LIB_NVRTC, CUSHIM_LIB_NVJITLINK};
static const char *const lib_keys[] = {"nvrtc", "nvjitlink"};

static void print_libs_human(void) {
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
        const cushim_lib_info *l = cushim_lib_state(libs[i]);
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

/* A driver may report any count (a broken one, 2147483647): only the first MAX_LISTED devices
 * are queried and written, and the output says so. */
enum { MAX_LISTED = 64 };

static bool devices_cut(int count, char *buf, size_t n) {
    if (count <= MAX_LISTED) return false;
    snprintf(buf, n,
             "the first %d of the %d devices the driver reports (cushim-info lists at most %d)",
             MAX_LISTED, count, MAX_LISTED);
    return true;
}

static int run_human(const cushim_driver_info *info) {
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
        return RC_NO_DRIVER;
    }
    const cushim_driver_table *drv = cushim_driver();
    char why[512];
    int count = 0;
    bool listed = count_devices(drv, &count, why, sizeof why);
    linef(0, "devices", "%d", count);
    char cut[128];
    if (devices_cut(count, cut, sizeof cut)) linef(0, "listed", "%s", cut);
    int usable = 0;
    for (int i = 0; i < count && i < MAX_LISTED; i++) {
        device_report d;
        query_device(drv, i, &d);
        print_device_human(&d);
        usable += d.get_r == CUDA_SUCCESS;
    }
    if (listed && usable == 0) snprintf(why, sizeof why, "cuDeviceGet failed for every device");
    if (usable > 0) return RC_OK;
    fflush(stdout);
    fprintf(stderr, "cushim-info: no CUDA device: ");
    put_clean(stderr, why);
    fputc('\n', stderr);
    return RC_NO_DEVICE;
}

/* ------------------------------------------------------------------------------------------ */
/* JSON output                                                                                */
/* ------------------------------------------------------------------------------------------ */

static void json_value(json *j, const char *key, const value *v, value_kind kind) {
    json_member(j, key);
    if (v->r != CUDA_SUCCESS) {
        fputs("null", j->out);
    } else if (kind == KIND_BOOL) {
        fputs(v->v ? "true" : "false", j->out);
    } else {
        fprintf(j->out, "%lld", v->v);
    }
}

static void json_version(json *j, const char *key, const char *text_key, int v) {
    char ver[32];
    json_int(j, key, v);
    json_str(j, text_key, format_version(ver, sizeof ver, v) ? ver : NULL);
}

static void json_device(json *j, const device_report *d) {
    json_open(j, NULL, '{');
    json_int(j, "ordinal", d->ordinal);
    if (d->get_r != CUDA_SUCCESS) {
        char why[256];
        snprintf(why, sizeof why, "cuDeviceGet failed with %s", cushim_error_name(d->get_r));
        json_str(j, "error", why);
        json_close(j, '}');
        return;
    }
    json_str(j, "error", NULL);
    json_str(j, "name", d->name_r == CUDA_SUCCESS ? d->name : NULL);
    char cc[48];
    bool cc_known = d->cc_major.r == CUDA_SUCCESS && d->cc_minor.r == CUDA_SUCCESS;
    if (cc_known) snprintf(cc, sizeof cc, "%lld.%lld", d->cc_major.v, d->cc_minor.v);
    json_str(j, "compute_capability", cc_known ? cc : NULL);
    json_str(j, "pci_bus_id", d->pci_r == CUDA_SUCCESS ? d->pci_bus_id : NULL);
    json_value(j, "total_memory_bytes", &d->total_mem, KIND_BYTES);
    for (size_t i = 0; i < ATTR_COUNT; i++) {
        json_value(j, attr_specs[i].json_key, &d->attrs[i], attr_specs[i].kind);
    }
    json_close(j, '}');
}

static void json_driver(json *j, const cushim_driver_info *info) {
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", CUSHIM_VERSION_MAJOR, CUSHIM_VERSION_MINOR,
             CUSHIM_VERSION_PATCH);
    json_str(j, "cushim_version", version);
    json_str(j, "status", driver_status_token(info->status));
    json_str(j, "result", cushim_error_name(info->result));
    json_int(j, "result_code", (long long)info->result);
    json_str(j, "message", info->message ? info->message : "");
    json_str(j, "path", info->path);
    json_version(j, "driver_version", "driver_version_string", info->driver_version);
    json_version(j, "header_version", "header_version_string", info->header_version);
    json_open(j, "entries", '{');
    json_int(j, "resolved", info->entries_resolved);
    json_int(j, "total", info->entries_total);
    json_close(j, '}');
    /* cushim's mock driver: what it implements; null for any other driver. */
    int implemented, total;
    if (query_mock(info, &implemented, &total)) {
        json_open(j, "mock", '{');
        json_int(j, "implemented", implemented);
        json_int(j, "total", total);
        json_close(j, '}');
    } else {
        json_str(j, "mock", NULL);
    }
    json_str(j, "default_stream", info->per_thread_stream ? "per-thread" : "legacy");
    json_open(j, "libraries", '{');
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
        const cushim_lib_info *l = cushim_lib_state(libs[i]);
        char ver[32];
        json_open(j, lib_keys[i], '{');
        json_str(j, "name", l->name);
        json_str(j, "status", lib_status_token(l->status));
        json_str(j, "result", cushim_error_name(l->result));
        json_str(j, "message", l->message ? l->message : "");
        json_str(j, "path", l->path);
        snprintf(ver, sizeof ver, "%d.%d", l->version_major, l->version_minor);
        json_str(j, "version", l->status == CUSHIM_LIB_LOADED ? ver : NULL);
        snprintf(ver, sizeof ver, "%d.%d", l->header_major, l->header_minor);
        json_str(j, "header_version", ver);
        json_str(j, "env", l->env);
        json_open(j, "entries", '{');
        json_int(j, "resolved", l->entries_resolved);
        json_int(j, "total", l->entries_total);
        json_close(j, '}');
        json_close(j, '}');
    }
    json_close(j, '}');
}

/* Lists the devices into the open "devices" array; returns how many could be opened. */
static int json_devices(json *j, const cushim_driver_table *drv, int count) {
    int usable = 0;
    for (int i = 0; i < count && i < MAX_LISTED; i++) {
        device_report d;
        query_device(drv, i, &d);
        json_device(j, &d);
        usable += d.get_r == CUDA_SUCCESS;
    }
    return usable;
}

static int run_json(const cushim_driver_info *info) {
    json j = {stdout, 1, true};
    fputc('{', stdout);
    json_driver(&j, info);
    bool loaded = info->status == CUSHIM_DRIVER_LOADED;
    const cushim_driver_table *drv = loaded ? cushim_driver() : NULL;
    char why[512] = "";
    int count = 0;
    bool listed = loaded && count_devices(drv, &count, why, sizeof why);
    json_int(&j, "devices_reported", count);
    char cut[128];
    json_str(&j, "devices_cut", devices_cut(count, cut, sizeof cut) ? cut : NULL);
    json_open(&j, "devices", '[');
    int usable = json_devices(&j, drv, count);
    json_close(&j, ']');
    if (listed && usable == 0) snprintf(why, sizeof why, "cuDeviceGet failed for every device");
    /* Without a driver, the reason is "message"; device_error is only about enumeration. */
    json_str(&j, "device_error", loaded && usable == 0 ? why : NULL);
    json_close(&j, '}');
    fputc('\n', stdout);
    if (!loaded) return RC_NO_DRIVER;
    return usable > 0 ? RC_OK : RC_NO_DEVICE;
}

/* ------------------------------------------------------------------------------------------ */
/* Command line                                                                               */
/* ------------------------------------------------------------------------------------------ */

typedef enum mode { MODE_HUMAN, MODE_JSON, MODE_HELP, MODE_VERSION } mode;

/* Returns false, after telling stderr why, on any argument it does not know. */
static bool parse_args(int argc, char **argv, mode *out) {
    bool json_wanted = false, help = false, version = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json_wanted = true;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            help = true;
        } else if (strcmp(argv[i], "--version") == 0) {
            version = true;
        } else {
            fputs("cushim-info: unknown argument '", stderr);
            put_clean(stderr, argv[i]);
            fputs("'\n", stderr);
            return false;
        }
    }
    *out = help ? MODE_HELP : version ? MODE_VERSION : json_wanted ? MODE_JSON : MODE_HUMAN;
    return true;
}

int main(int argc, char **argv) {
    mode m = MODE_HUMAN;
    if (!parse_args(argc, argv, &m)) {
        fputs(usage_text, stderr);
        return RC_USAGE;
    }
    if (m == MODE_HELP) {
        fputs(usage_text, stdout);
        return RC_OK;
    }
    if (m == MODE_VERSION) {
        char headers[32];
        if (!format_version(headers, sizeof headers, CUDA_VERSION)) headers[0] = '\0';
        printf("cushim-info %d.%d.%d (CUDA %s headers, %d)\n", CUSHIM_VERSION_MAJOR,
               CUSHIM_VERSION_MINOR, CUSHIM_VERSION_PATCH, headers, CUDA_VERSION);
        return RC_OK;
    }
    const cushim_driver_info *info = cushim_driver_state();
    return m == MODE_JSON ? run_json(info) : run_human(info);
}
