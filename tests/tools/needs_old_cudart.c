/* A program that NEEDs libcudart.so.12 (the library it links is a stand-in with that soname), for
 * cushim-run's test of a runtime of another major version. */
int cushim_test_old_cudart(void);

int main(void) { return cushim_test_old_cudart(); }
