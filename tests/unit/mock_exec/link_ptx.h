/* Two PTX modules for the link tests, on the mock (tests/unit/mock_exec/test_link.c) and on a GPU
 * (tests/gpu/test_gpu_load_checks.c): the library defines a function and a variable, the user
 * declares both .extern and its kernel k writes twice(20) + bias, 45, to its argument. */
#ifndef CUSHIM_LINK_PTX_H
#define CUSHIM_LINK_PTX_H

#define LINK_PTX_HEAD ".version 8.0\n.target sm_90\n.address_size 64\n\n"

/* The library: a function and a variable, visible to other inputs. */
static const char ptx_lib[] =
    LINK_PTX_HEAD "// a comment with a { brace\n"
                  ".visible .global .align 4 .u32 bias = 5;\n"
                  ".visible .func (.param .b32 r) twice(.param .b32 x)\n{\n.reg .b32 %r<3>;\n"
                  "ld.param.b32 %r1, [x]; add.s32 %r2, %r1, %r1; st.param.b32 [r], %r2;\nret;\n}\n";

/* The user: declares both and calls the function. */
static const char ptx_user[] = LINK_PTX_HEAD
    ".extern .global .align 4 .u32 bias;\n"
    ".extern .func (.param .b32 r) twice\n(\n.param .b32 x\n)\n;\n"
    ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<5>; .reg .b64 %rd<3>;\n"
    "mov.u32 %r1, 20;\n"
    "{\n.param .b32 a0; .param .b32 r0;\nst.param.b32 [a0], %r1;\n"
    "call.uni (r0), twice, (a0);\nld.param.b32 %r2, [r0];\n}\n"
    "ld.global.u32 %r3, [bias]; add.s32 %r4, %r2, %r3;\n"
    "ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd2, %rd1; st.global.u32 [%rd2], %r4;\n"
    "ret;\n}\n";

/* Two inputs that each define their own `seed` and `pick` without .visible (internal linkage,
 * PTX ISA "Linking Directives"): a link keeps them apart. Kernel ka (the first input) writes
 * pick(), 7; kb (the second) writes pick() + seed, 100 + 100. */
#define LINK_PTX_OWN(kernel, value, extra)                                                         \
    LINK_PTX_HEAD                                                                                  \
    ".global .align 4 .u32 seed = " #value ";\n"                                                   \
    ".func (.param .b32 r) pick()\n{\n.reg .b32 %r<2>;\n"                                          \
    "ld.global.u32 %r1, [seed]; st.param.b32 [r], %r1;\nret;\n}\n"                                 \
    ".visible .entry " kernel "(.param .u64 out)\n{\n"                                             \
    ".reg .b32 %r<5>; .reg .b64 %rd<3>;\n"                                                         \
    "{\n.param .b32 r0;\ncall.uni (r0), pick, ();\nld.param.b32 %r1, [r0];\n}\n" extra             \
    "ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd2, %rd1;\n"                                   \
    "st.global.u32 [%rd2], %r1;\nret;\n}\n"
static const char ptx_own_a[] = LINK_PTX_OWN("ka", 7, "");
static const char ptx_own_b[] =
    LINK_PTX_OWN("kb", 100, "ld.global.u32 %r2, [seed]; add.s32 %r1, %r1, %r2;\n");

#endif
