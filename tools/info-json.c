/* cushim-info's report as one JSON object (--json): the same queries as the text. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/driver_status.h"
#include "common/hints.h"
#include "cushim.h"
#include "info-json.h"
#include "info-query.h"
#include "json-writer.h"

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
    for (size_t i = 0; i < INFO_LIB_COUNT; i++) {
        const cushim_lib_info *l = cushim_lib_state(info_libs[i]);
        char ver[32];
        json_open(j, info_lib_keys[i], '{');
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
    for (int i = 0; i < count && i < INFO_MAX_LISTED; i++) {
        device_report d;
        query_device(drv, i, &d);
        json_device(j, &d);
        usable += d.get_r == CUDA_SUCCESS;
    }
    return usable;
}

int info_run_json(const cushim_driver_info *info) {
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
    json_str(&j, "devices_cut", info_devices_cut(count, cut, sizeof cut) ? cut : NULL);
    json_open(&j, "devices", '[');
    int usable = json_devices(&j, drv, count);
    json_close(&j, ']');
    if (listed && usable == 0) snprintf(why, sizeof why, "cuDeviceGet failed for every device");
    /* Without a driver, the reason is "message"; device_error is only about enumeration. */
    json_str(&j, "device_error", loaded && usable == 0 ? why : NULL);
    json_close(&j, '}');
    fputc('\n', stdout);
    if (!loaded) return INFO_RC_NO_DRIVER;
    return usable > 0 ? INFO_RC_OK : INFO_RC_NO_DEVICE;
}
