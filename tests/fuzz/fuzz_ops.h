/* Internal to the fuzzer's instructions (fuzz_ops.c, fuzz_ops_objects.c, fuzz_ops_code.c):
 * handle operands, the checks the instructions share, and the instructions that fuzz_ops.c's
 * dispatch table names.
 */
#ifndef CUSHIM_FUZZ_OPS_H
#define CUSHIM_FUZZ_OPS_H

#include "fuzz.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The mock's device and stream priorities (an H200: see mock/mock_device.c). */
#define MOCK_SMS 132
#define MOCK_PRIORITY_LEAST 0
#define MOCK_PRIORITY_GREATEST (-5)

typedef struct fz_handle {
    void *p;
    int kind; /* of the object; FZ_KIND_NONE for NULL */
    int src;  /* the kind of slot it came from; FZ_KIND_NONE for the pool's NULL */
    int slot;
} fz_handle;

void *fz_slot_ptr(int kind, int slot);
fz_handle fz_handle_at(int kind, int slot);
/* The handle read again from its slot: a create first releases what its slot held, which may
 * be the very handle it was given. */
fz_handle fz_refresh(fz_handle h);
/* A handle operand for a call that expects `kind` (see fuzz.h). */
fz_handle fz_pick(fz_reader *r, int kind);
/* A slot of the kind that holds nothing, or -1. */
int fz_free_slot(int kind);

/* A value a failed create must have overwritten with NULL. */
extern char fz_poison;
#define FZ_POISON(type) ((type *)(void *)&fz_poison)

/* A failed create left its out-pointer NULL; a successful one set it. */
void fz_check_out(const fz_call *c, CUresult r, const void *out);
/* A call that should have succeeded, and did not for no reason the harness made. */
void fz_expect_ok(const fz_call *c, CUresult r);
/* The sentence of the last failure mentions text (unless a fault fired: then it is the
 * fault's). */
void fz_expect_error_has(const fz_call *c, const char *text);

/* fuzz_ops_objects.c */
void fz_op_ctx_primary(fz_reader *r);
void fz_op_ctx_create(fz_reader *r);
void fz_op_set_current(fz_reader *r);
void fz_op_ctx_sync(fz_reader *r);
void fz_op_device_sync(fz_reader *r);
void fz_op_priority_range(fz_reader *r);
void fz_op_stream_create(fz_reader *r);
void fz_op_stream_sync(fz_reader *r);
void fz_op_stream_query(fz_reader *r);
void fz_op_stream_wait(fz_reader *r);
void fz_op_same_queue(fz_reader *r);
void fz_op_event_create(fz_reader *r);
void fz_op_event_record(fz_reader *r);
void fz_op_event_query(fz_reader *r);
void fz_op_event_sync(fz_reader *r);
void fz_op_elapsed(fz_reader *r);

/* fuzz_ops_code.c */
void fz_op_module_load(fz_reader *r);
void fz_op_module_file(fz_reader *r);
void fz_op_module_function(fz_reader *r);
void fz_op_library_load(fz_reader *r);
void fz_op_library_function(fz_reader *r);
void fz_op_launch(fz_reader *r);
void fz_op_occ_active(fz_reader *r);
void fz_op_occ_potential(fz_reader *r);
void fz_op_occ_coop_grid(fz_reader *r);
void fz_op_coop_at_limit(fz_reader *r);
/* Writes the files FZ_PATH_* name. */
void fz_ops_code_init(void);

#endif
