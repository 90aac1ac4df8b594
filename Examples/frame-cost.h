/*
 * What a Lamina HUD costs a host's frame, measured inside the host (the GLFW, GTK 4 and Qt 6
 * examples include this). With LAMINA_HOST_MEASURE=N in the environment, once its checks
 * have passed the host renders N more frames, alternately without and with the HUD (so that
 * drift in the machine's load falls on both alike). Each frame is timed from the start of the
 * application's scene to glFinish (the GPU done with the frame; the swap, the same either
 * way, is left out); with the HUD, the thread CPU time of lamina_flush is Lamina's part. The
 * report gives the medians and their ratio. Tools/host-frame-cost.sh runs the three hosts so.
 */
#ifndef LAMINA_EXAMPLES_FRAME_COST_H
#define LAMINA_EXAMPLES_FRAME_COST_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define FRAME_COST_MAX 2000

typedef struct frame_cost {
    int wanted, done;
    double started, lamina_started;
    double wall[2][FRAME_COST_MAX / 2 + 1], lamina_cpu[FRAME_COST_MAX / 2 + 1];
    int count[2];
} frame_cost;

static double frame_cost_clock(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The frames asked for (LAMINA_HOST_MEASURE, at most 2000; 0: no measurement). */
static void frame_cost_init(frame_cost *m) {
    const char *e = getenv("LAMINA_HOST_MEASURE");
    int n = e ? atoi(e) : 0;
    m->wanted = n < 0 ? 0 : n > FRAME_COST_MAX ? FRAME_COST_MAX : n;
    m->done = 0;
    m->count[0] = m->count[1] = 0;
}
/* Whether frames are still to be measured. */
static int frame_cost_running(const frame_cost *m) { return m->done < m->wanted; }
/* Whether the frame being measured carries the HUD (every other one). */
static int frame_cost_hud(const frame_cost *m) { return m->done % 2; }
/* Before the application's scene. */
static void frame_cost_begin(frame_cost *m) { m->started = frame_cost_clock(CLOCK_MONOTONIC); }
/* Around lamina_flush. */
static void frame_cost_lamina_begin(frame_cost *m) { m->lamina_started = frame_cost_clock(CLOCK_THREAD_CPUTIME_ID); }
static void frame_cost_lamina_end(frame_cost *m) {
    m->lamina_cpu[m->count[1]] = frame_cost_clock(CLOCK_THREAD_CPUTIME_ID) - m->lamina_started;
}
/* After glFinish. */
static void frame_cost_end(frame_cost *m) {
    int hud = frame_cost_hud(m);
    m->wall[hud][m->count[hud]++] = frame_cost_clock(CLOCK_MONOTONIC) - m->started;
    m->done++;
}

static int frame_cost_compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double frame_cost_median(double *v, int n) {
    if (n == 0) return 0;
    qsort(v, (size_t)n, sizeof *v, frame_cost_compare);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Prints "WHO: frame cost over N frames: …" (medians, ms). */
static void frame_cost_report(frame_cost *m, const char *who) {
    double without = frame_cost_median(m->wall[0], m->count[0]), with = frame_cost_median(m->wall[1], m->count[1]);
    double lamina = frame_cost_median(m->lamina_cpu, m->count[1]);
    printf("%s: frame cost over %d frames (medians, scene start to glFinish): %.3f ms without the HUD, %.3f ms with it "
           "(%.2f×, +%.3f ms); Lamina's CPU in lamina_flush %.3f ms a frame\n",
           who, m->done, without * 1e3, with * 1e3, without > 0 ? with / without : 0, (with - without) * 1e3, lamina * 1e3);
    fflush(stdout);
}

#endif
