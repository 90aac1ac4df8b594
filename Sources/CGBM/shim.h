#include <stdint.h>
#include <gbm.h>

// GBM_FORMAT_* are function-like macros (__gbm_fourcc_code), which Swift cannot
// import; expose the ones Lamina uses as constants.
static const uint32_t LAMINA_GBM_FORMAT_ARGB8888 = GBM_FORMAT_ARGB8888;
static const uint32_t LAMINA_GBM_FORMAT_XRGB8888 = GBM_FORMAT_XRGB8888;
static const uint32_t LAMINA_GBM_FORMAT_ABGR8888 = GBM_FORMAT_ABGR8888;
// DRM_FORMAT_MOD_INVALID from drm_fourcc.h, also a macro expression.
static const uint64_t LAMINA_DRM_FORMAT_MOD_INVALID = 0x00ffffffffffffffULL;
