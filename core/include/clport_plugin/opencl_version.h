/* The version an OpenCL version string names, read the same way by the core and by plugins.
 *
 * The OpenCL specification gives CL_DEVICE_VERSION and CL_PLATFORM_VERSION the form
 * "OpenCL <major>.<minor> <vendor text>" and CL_DEVICE_OPENCL_C_VERSION the form
 * "OpenCL C <major>.<minor> <vendor text>". Header-only and plain C, so a plugin needs no link
 * to use it. */
#ifndef CLPORT_PLUGIN_OPENCL_VERSION_H
#define CLPORT_PLUGIN_OPENCL_VERSION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* major * 100 + minor: "OpenCL 3.0 CUDA" -> 300, "OpenCL C 1.2 Adreno(TM) 640" -> 102. 0 when
 * text is NULL or not of either form (a minor of more than two digits included, which would
 * make the number ambiguous). */
static inline int32_t clport_opencl_version(const char* text) {
  static const char kPrefix[] = "OpenCL";
  const char* p = text;
  int32_t major = 0;
  int32_t minor = 0;
  int digits = 0;
  size_t i;
  if (p == NULL) return 0;
  for (i = 0; i < sizeof(kPrefix) - 1; ++i, ++p) {
    if (*p != kPrefix[i]) return 0;
  }
  if (*p != ' ') return 0;
  while (*p == ' ') ++p;
  if (p[0] == 'C' && p[1] == ' ') {
    ++p;
    while (*p == ' ') ++p;
  }
  for (; *p >= '0' && *p <= '9'; ++p) {
    if (++digits > 4) return 0;
    major = major * 10 + (*p - '0');
  }
  if (digits == 0 || *p != '.') return 0;
  ++p;
  digits = 0;
  for (; *p >= '0' && *p <= '9'; ++p) {
    if (++digits > 2) return 0;
    minor = minor * 10 + (*p - '0');
  }
  if (digits == 0) return 0;
  return major * 100 + minor;
}

#ifdef __cplusplus
}
#endif

#endif /* CLPORT_PLUGIN_OPENCL_VERSION_H */
