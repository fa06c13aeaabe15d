/* Internal: the launch with attributes (cuLaunchKernelEx), which cushim_launch and
 * cushim_launch_cooperative hand a config to when it sets any (cushim__has_attributes). */
#ifndef CUSHIM_API_LAUNCH_EX_H
#define CUSHIM_API_LAUNCH_EX_H

#include "cushim.h"

/* Checks c's attributes against the device's and f's limits, then launches through
 * cuLaunchKernelEx on c->stream, or on the default stream of f's context with that context
 * current. c has passed the dimension and stream checks. cooperative: a cooperative launch even
 * when c->cooperative is false (cushim_launch_cooperative). Every refusal and failure sets the
 * last error, naming fn. */
CUresult cushim__launch_ex(const cushim_function *f, const cushim_launch_config *c, void **params,
                           bool cooperative, const char *fn);

#endif
