/*
 * The cost of a C API call that sets a layer property (lamina_layer_set_opacity,
 * lamina_layer_set_position), against the cheapest call into the library
 * (lamina_api_version) measured in the same run: medians of 9 rounds of 10⁵ calls.
 * A benchmark: it prints, it asserts nothing. Built and run by Tools/capi-tests.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include <lamina.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (double)t.tv_sec * 1e9 + (double)t.tv_nsec; }
static int by_value(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

enum { ROUNDS = 9, CALLS = 100000 };
static volatile uint32_t sink;

static double median_ns(int which, lamina_layer *layer) {
    double r[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
        double t0 = now();
        for (int i = 0; i < CALLS; i++) {
            switch (which) {
            case 0: sink += lamina_api_version(); break;
            case 1: lamina_layer_set_opacity(layer, (i & 1) ? 0.5 : 0.75); break;
            default: lamina_layer_set_position(layer, (lamina_point){(double)(i & 63), 10}); break;
            }
        }
        r[k] = (now() - t0) / CALLS;
    }
    qsort(r, ROUNDS, sizeof r[0], by_value);
    return r[ROUNDS / 2];
}

int main(void) {
    lamina_layer *layer;
    if (lamina_layer_create(&layer) != LAMINA_OK) { fprintf(stderr, "%s\n", lamina_last_error()); return 1; }
    lamina_layer_set_frame(layer, (lamina_rect){0, 0, 10, 10});
    median_ns(1, layer);   /* warm-up */
    double base = median_ns(0, layer), opacity = median_ns(1, layer), position = median_ns(2, layer);
    printf("C call overhead (median of %d × %d calls): lamina_api_version %.1f ns; lamina_layer_set_opacity %.1f ns (%.1f×); lamina_layer_set_position %.1f ns (%.1f×)\n",
           ROUNDS, CALLS, base, opacity, opacity / base, position, position / base);
    lamina_release(layer);
    return 0;
}
