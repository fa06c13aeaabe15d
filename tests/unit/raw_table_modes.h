/* The per-thread half of test_raw_table_modes (raw_table_per_thread.c), callable from a file in
 * either mode. */
#ifndef CUSHIM_TEST_RAW_TABLE_MODES_H
#define CUSHIM_TEST_RAW_TABLE_MODES_H

#include "cushim.h"

CUresult per_thread_htod(CUdeviceptr dst, const void *src, size_t n);
CUresult per_thread_stream_sync(CUstream s);
const void *per_thread_table(void);

#endif
