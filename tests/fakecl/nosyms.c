/* libclport_fakecl_nosyms: a shared library with no OpenCL symbol at all (a wrong file named
 * libOpenCL.so, a stub left by a package manager). The loader must reject it by name. */
__attribute__((visibility("default"))) int fakecl_nosyms_marker(void) { return 42; }
