/* Internal: the tracer's file. Blocks of lines or events are written whole (tbuf.c hands them
 * over); the file's head and tail go through a small buffer. */
#ifndef CUSHIM_TRACE_OUTPUT_H
#define CUSHIM_TRACE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

/* Opens `name` for writing, without waiting (a FIFO that no process reads is refused): true, or
 * false with the reason in why. With `timeline`, the file is one JSON array: "[" now, and every
 * block's leading ",\n" but the first's dropped. */
bool cushim__out_open(const char *name, bool timeline, char *why, size_t why_cap);
bool cushim__out_is_open(void);
/* A block of lines or events: written while the file is open and this process's. */
void cushim__out_block(const char *p, size_t n);
/* The file's tail, through the buffer. */
void cushim__out_append(const char *p, size_t n);
/* Writes what the buffer holds and closes the file. */
void cushim__out_close(void);
/* In a forked child: the parent's file is not this process's; closed unwritten. */
void cushim__out_forget(void);
/* Writes all of p to fd, however many calls it takes; a full disk loses the trace, quietly. */
void cushim__out_write_all(int fd, const char *p, size_t n);

#endif
