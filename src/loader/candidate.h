/* Internal: the look at a candidate library before dlopen, shared by every loaded library. */
#ifndef CUSHIM_LOADER_CANDIDATE_H
#define CUSHIM_LOADER_CANDIDATE_H

#include <stdbool.h>
#include <stddef.h>

/* dlopen cannot be trusted with every file: a FIFO or a device blocks it or feeds it forever,
 * and an ELF file cut short after its program headers is mapped and then dies of SIGBUS when a
 * segment past the end is touched. So a candidate given as a path is looked at first; false
 * refuses it, with the reason written into why ("PATH (...); "). Anything else odd (text, a
 * short file, a directory) is left to dlopen, whose own words are clear. */
bool cushim__safe_to_open(const char *path, char *why, size_t n);

#endif
