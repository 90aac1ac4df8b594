// libdrm (KMS: mode setting, framebuffers, page flips) for the KMS example.
#include <stdint.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>

// DRM_FORMAT_* are macro expressions Swift cannot import.
static const uint32_t LAMINA_DRM_FORMAT_XRGB8888 = DRM_FORMAT_XRGB8888;
static const uint32_t LAMINA_DRM_MODE_PAGE_FLIP_EVENT = DRM_MODE_PAGE_FLIP_EVENT;
