/* Internal: the compiler hints, spelled once. It includes nothing, so that every part of the
 * tree (both layers of the library, the tools, the benchmark) can use it. Each hint is a no-op
 * for a compiler without GNU extensions. */
#ifndef CUSHIM_COMMON_HINTS_H
#define CUSHIM_COMMON_HINTS_H

#if defined(__GNUC__)
/* Branch weights: a failure is unlikely, the good case likely. */
#define CUSHIM__LIKELY(x) __builtin_expect(!!(x), 1)
#define CUSHIM__UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Kept out of line: a function off the hot path (COLD also moves it away from the hot code). */
#define CUSHIM__NOINLINE __attribute__((noinline))
#define CUSHIM__COLD __attribute__((cold, noinline))
/* A printf-style function: argument fmt is the format, the arguments start at first. */
#define CUSHIM__PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
/* Run when the library is loaded, or unloaded (or the process exits). No fallback: a compiler
 * without them must fail to build rather than silently skip the fork and unload handlers. */
#define CUSHIM__CONSTRUCTOR __attribute__((constructor))
#define CUSHIM__DESTRUCTOR __attribute__((destructor))
/* A constructor that runs before those of no priority, wherever its object lies on the link
 * line: with cushim linked statically, before the program's own constructors. */
#define CUSHIM__EARLY_CONSTRUCTOR __attribute__((constructor(101)))
#else
#define CUSHIM__LIKELY(x) (x)
#define CUSHIM__UNLIKELY(x) (x)
#define CUSHIM__NOINLINE
#define CUSHIM__COLD
#define CUSHIM__PRINTF(fmt, first)
#endif

#endif
