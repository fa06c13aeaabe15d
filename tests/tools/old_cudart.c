/* The stand-in for NVIDIA's libcudart.so.12: cushim-run reads only its soname. */
int cushim_test_old_cudart(void);

int cushim_test_old_cudart(void) { return 0; }
