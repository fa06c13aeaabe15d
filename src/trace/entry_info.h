/* Internal: what the generated printers know of each entry's arguments (gen/gen-trace.py). */
#ifndef CUSHIM_TRACE_ENTRY_INFO_H
#define CUSHIM_TRACE_ENTRY_INFO_H

#include "cushim.h"

/* How an argument prints; the generator numbers them the same way. */
enum {
    CUSHIM__ARG_HEX,      /* pointers and handles */
    CUSHIM__ARG_UNSIGNED, /* sizes, counts */
    CUSHIM__ARG_SIGNED,
    CUSHIM__ARG_FLOAT,
    CUSHIM__ARG_STRING,      /* const char *: quoted */
    CUSHIM__ARG_ENUM,        /* by its cuda.h name */
    CUSHIM__ARG_FLAGS,       /* the names of its bits, joined by | */
    CUSHIM__ARG_DIM3,        /* this argument and the next two, as (x,y,z) */
    CUSHIM__ARG_GROUPED,     /* printed by the DIM3 before it */
    CUSHIM__ARG_OPAQUE,      /* a struct passed by value */
    CUSHIM__ARG_RESULT,      /* a CUresult argument */
    CUSHIM__ARG_DIM3_STRUCT, /* a dim3 passed by value (the runtime's launches), as (x,y,z) */
};

typedef struct cushim__trace_arg {
    const char *name;
    unsigned char kind;
    unsigned char size;     /* sizeof the argument's type */
    short enum_index;       /* into cushim__trace_enums, for ENUM and FLAGS */
    unsigned char name_len; /* strlen(name): no strlen per traced call */
    /* A pointer to one value the call writes: kind and size are the value's, which is printed
     * as [value] after a call that succeeded (the pointer itself otherwise, or when NULL). */
    unsigned char output;
} cushim__trace_arg;

/* stream: the argument that is the call's stream, or -1; -2 - k when it is the hStream of the
 * CUlaunchConfig that argument k points at. function: the CUfunction or CUkernel argument whose
 * kernel the line names, or -1; launch: the entry launches it (counted per kernel). */
typedef struct cushim__trace_entry {
    const cushim__trace_arg *args;
    unsigned count;
    int stream;
    signed char function;
    unsigned char launch;
} cushim__trace_entry;

typedef struct cushim__trace_enum_value {
    const char *name;
    long long value;
} cushim__trace_enum_value;

typedef struct cushim__trace_enum {
    const char *type;
    const cushim__trace_enum_value *values;
    unsigned count;
} cushim__trace_enum;

extern const cushim__trace_entry cushim__trace_entries[CUSHIM_TABLE_ENTRIES];
extern const cushim__trace_enum cushim__trace_enums[];

#endif
