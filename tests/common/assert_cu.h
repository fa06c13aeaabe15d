/* Shared by the unit and GPU tests: cmocka's assert_int_equal prints numbers; these print
 * CUresult names and cushim's sentence too. Include after <cmocka.h> and "cushim.h". */
#ifndef CUSHIM_ASSERT_CU_H
#define CUSHIM_ASSERT_CU_H

#define assert_cu(expected, actual)                                                                \
    do {                                                                                           \
        CUresult e_ = (expected), a_ = (actual);                                                   \
        if (e_ != a_) {                                                                            \
            fail_msg("expected %s, got %s (%s)", cushim_error_name(e_), cushim_error_name(a_),     \
                     cushim_last_error());                                                         \
        }                                                                                          \
    } while (0)

#define assert_ok(expr) assert_cu(CUDA_SUCCESS, (expr))

#endif
