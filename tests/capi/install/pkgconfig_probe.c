/* Built by pkgconfig_test.cmake with nothing but the C compiler and `pkg-config --cflags --libs
 * clport`: the header is found, the library links and loads, and the library is the one the
 * header describes. */
#include <stdio.h>
#include <string.h>

#include "clport/clport.h"

int main(void) {
  const uint32_t version = clport_api_version();
  if ((version >> 16) != CLPORT_API_VERSION_MAJOR) {
    fprintf(stderr, "library API %u.%u, header %d.%d\n", (unsigned)(version >> 16), (unsigned)(version & 0xFFFF),
            CLPORT_API_VERSION_MAJOR, CLPORT_API_VERSION_MINOR);
    return 1;
  }
  if (strcmp(clport_status_name(CLPORT_OK), "ok") != 0) {
    fprintf(stderr, "clport_status_name(CLPORT_OK) = %s\n", clport_status_name(CLPORT_OK));
    return 1;
  }
  printf("clport %s (API %u.%u) through pkg-config\n", clport_version_string(), (unsigned)(version >> 16),
         (unsigned)(version & 0xFFFF));
  return 0;
}
