/* The C API is implemented in Swift (Sources/LaminaCAPI); this file only checks that the
 * header compiles as part of the build. */
#include "lamina.h"

__attribute__((visibility("hidden"))) uint32_t lamina_header_api_version_(void);
uint32_t lamina_header_api_version_(void) { return LAMINA_API_VERSION; }
