/*
 * The C API on the GBM backend (run inside the test VM, which has /dev/dri/card0): a
 * layer tree composited into a GBM target (a dma-buf), and a dma-buf made by another API
 * — libgbm directly, its pixels written through the CPU — shown as a layer's contents.
 * Checks pixels; exits non-zero on any mismatch.
 */
#define _POSIX_C_SOURCE 200809L
#include <lamina.h>

#include <fcntl.h>
#include <gbm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failed = 0;
#define CHECK(call)                                                                                         \
    do {                                                                                                    \
        lamina_status s_ = (call);                                                                          \
        if (s_ != LAMINA_OK) { printf("FAILED: %s (%d): %s\n", #call, (int)s_, lamina_last_error()); exit(1); } \
    } while (0)

static void expect(const uint8_t *px, int width, int x, int y, int r, int g, int b) {
    const uint8_t *p = px + (y * width + x) * 4;
    if (abs(p[0] - r) + abs(p[1] - g) + abs(p[2] - b) > 6) {
        printf("FAILED: pixel (%d,%d) is (%d,%d,%d), expected (%d,%d,%d)\n", x, y, p[0], p[1], p[2], r, g, b);
        failed++;
    }
}

int main(void) {
    const char *node = "/dev/dri/card0";
    lamina_device *device;
    CHECK(lamina_device_create("gbm", node, &device));
    printf("device: %s on %s\n", lamina_device_backend(device), node);

    /* A buffer of another API's: libgbm, linear ARGB8888, filled with green through the CPU. */
    int fd = open(node, O_RDWR | O_CLOEXEC);
    struct gbm_device *gbm = fd >= 0 ? gbm_create_device(fd) : NULL;
    if (!gbm) { printf("FAILED: gbm_create_device(%s)\n", node); return 1; }
    struct gbm_bo *bo = gbm_bo_create(gbm, 32, 16, GBM_FORMAT_ARGB8888, GBM_BO_USE_LINEAR | GBM_BO_USE_RENDERING);
    if (!bo) { printf("FAILED: gbm_bo_create\n"); return 1; }
    uint32_t stride = 0;
    void *map_data = NULL;
    uint8_t *pixels = gbm_bo_map(bo, 0, 0, 32, 16, GBM_BO_TRANSFER_WRITE, &stride, &map_data);
    if (!pixels) { printf("FAILED: gbm_bo_map\n"); return 1; }
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 32; x++) {
            uint8_t *p = pixels + y * stride + x * 4;   /* ARGB8888, little-endian: B, G, R, A */
            p[0] = 0; p[1] = 200; p[2] = 0; p[3] = 255;
        }
    gbm_bo_unmap(bo, map_data);
    int dmabuf = gbm_bo_get_fd(bo);

    lamina_target *target;
    CHECK(lamina_target_create_gbm(device, 64, 48, 1, &target));
    lamina_layer *root, *card, *imported;
    CHECK(lamina_layer_create(&root));
    CHECK(lamina_layer_set_frame(root, (lamina_rect){0, 0, 64, 48}));
    CHECK(lamina_layer_create(&card));
    CHECK(lamina_layer_set_frame(card, (lamina_rect){4, 4, 20, 20}));
    lamina_color red = {1, 0, 0, 1};
    CHECK(lamina_layer_set_background_color(card, &red));
    CHECK(lamina_layer_add_sublayer(root, card));
    CHECK(lamina_layer_create(&imported));
    CHECK(lamina_layer_set_frame(imported, (lamina_rect){28, 24, 32, 16}));
    CHECK(lamina_layer_set_contents_dmabuf(imported, device, dmabuf, 32, 16, GBM_FORMAT_ARGB8888, stride,
                                           gbm_bo_get_offset(bo, 0), gbm_bo_get_modifier(bo)));
    CHECK(lamina_layer_add_sublayer(root, imported));
    lamina_host *host;
    lamina_color white = {1, 1, 1, 1};
    CHECK(lamina_host_create(root, target, &white, &host));
    CHECK(lamina_flush());

    uint8_t px[64 * 48 * 4];
    CHECK(lamina_target_read_pixels(target, LAMINA_PIXEL_RGBA8, px, 64 * 4, sizeof px));
    expect(px, 64, 10, 10, 255, 0, 0);      /* the card */
    expect(px, 64, 40, 30, 0, 200, 0);      /* the imported dma-buf's green */
    expect(px, 64, 60, 2, 255, 255, 255);   /* the background */

    lamina_release(host); lamina_release(imported); lamina_release(card); lamina_release(root); lamina_release(target);
    CHECK(lamina_device_close(device));
    lamina_release(device);
    close(dmabuf);
    gbm_bo_destroy(bo);
    gbm_device_destroy(gbm);
    close(fd);
    if (lamina_live_handles() != 0) { printf("FAILED: %zu handles alive\n", lamina_live_handles()); failed++; }
    if (failed) printf("capi gbm: %d checks failed\n", failed);
    else printf("capi gbm: GBM target and dma-buf contents: all pixel checks passed\n");
    return failed ? 1 : 0;
}
