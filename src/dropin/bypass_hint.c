/* libcushim-cuda-hint.a: what the linker says when the drop-in was bypassed.
 *
 * Every way of using the drop-in (pkg-config cushim-cuda, Meson's cushim-cuda, CMake's
 * cushim::cuda) links this archive. A program compiled with cushim's cuda.h calls cushim_cuInit
 * and never needs this member, so it is not linked in. One compiled with the toolkit's cuda.h
 * (an -I of the toolkit's include directory before the drop-in's) calls libcuda's cuInit, which
 * libcushim does not export: without this file the linker says only "undefined reference to
 * cuInit". This member defines cuInit for that case alone, so that the linker prints the warning
 * below (GNU ld and gold, from the .gnu.warning section) and fails on the symbol whose name says
 * the same (every linker): the link fails either way, with a reason.
 *
 * cuInit is libcuda's name, not one of cushim's: it is defined only here, in an archive member
 * that no correct build pulls in. */

/* Never defined: its name is the message of the link error. */
void cuda_h_was_the_toolkits_not_cushims_dropin__see_cushim_README_Troubleshooting(void);

int cuInit(unsigned flags);

int cuInit(unsigned flags) {
    (void)flags;
    cuda_h_was_the_toolkits_not_cushims_dropin__see_cushim_README_Troubleshooting();
    return 3; /* CUDA_ERROR_NOT_INITIALIZED; never reached, since the link fails */
}

__attribute__((used, section(".gnu.warning.cuInit"))) static const char cuinit_warning[] =
    "this object calls libcuda's cuInit: it was compiled with the toolkit's cuda.h, not cushim's "
    "drop-in (an -I of the toolkit's include directory comes before the flags of cushim-cuda); "
    "see \"Troubleshooting\" in cushim's README";
