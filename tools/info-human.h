/* cushim-info's text report. */
#ifndef CUSHIM_TOOLS_INFO_HUMAN_H
#define CUSHIM_TOOLS_INFO_HUMAN_H

#include <stdio.h>

#include "cushim.h"

/* Prints the report; returns cushim-info's exit code (info-query.h). */
int info_run_human(const cushim_driver_info *info);

/* Writes text with control characters replaced, so that a driver's odd name or a path with a
 * newline cannot break the layout or send escape sequences to the terminal. */
void info_put_clean(FILE *out, const char *s);

#endif
