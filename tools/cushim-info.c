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
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cushim.h"
#include "info-human.h"
#include "info-json.h"
#include "info-query.h"

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
            info_put_clean(stderr, argv[i]);
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
        return INFO_RC_USAGE;
    }
    if (m == MODE_HELP) {
        fputs(usage_text, stdout);
        return INFO_RC_OK;
    }
    if (m == MODE_VERSION) {
        char headers[32];
        if (!format_version(headers, sizeof headers, CUDA_VERSION)) headers[0] = '\0';
        printf("cushim-info %d.%d.%d (CUDA %s headers, %d)\n", CUSHIM_VERSION_MAJOR,
               CUSHIM_VERSION_MINOR, CUSHIM_VERSION_PATCH, headers, CUDA_VERSION);
        return INFO_RC_OK;
    }
    const cushim_driver_info *info = cushim_driver_state();
    return m == MODE_JSON ? info_run_json(info) : info_run_human(info);
}
