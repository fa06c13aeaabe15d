/* cushim-info's JSON report. */
#ifndef CUSHIM_TOOLS_INFO_JSON_H
#define CUSHIM_TOOLS_INFO_JSON_H

#include "cushim.h"

/* Prints the report as one JSON object; returns cushim-info's exit code (info-query.h). */
int info_run_json(const cushim_driver_info *info);

#endif
