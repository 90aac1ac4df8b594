#version 300 es
// Gaussian blur and 2×2 downsampling on whole texels (texelFetch: no filtering, exact
// zero outside the valid source texels). One pass per call (GaussianBlur, Effects.swift):
//   u_mode 0: output pixel o = the mean of source texels origin + 2o + {0,1}²
//   u_mode 1: output pixel o = Σ w_|i| · source(origin + o + i·direction), |i| ≤ radius
// With u_tint.a ≥ 0 the result's alpha tints u_tint (premultiplied): a shadow.
// Outside the valid source texels: zero (a shadow's source), or the nearest edge texel
// (u_clampEdges: a backdrop at the target's edge, as Core Animation's).
// Offscreen targets store their top row first, so gl_FragCoord counts rows from the top,
// as texel rows do.
precision highp float;

uniform sampler2D u_texture;
uniform int u_mode;
uniform ivec2 u_origin;
uniform ivec4 u_valid;       // x0, y0, x1, y1 (exclusive)
uniform ivec2 u_direction;
uniform int u_radius;
uniform float u_weights[33];
uniform vec4 u_tint;
uniform int u_clampEdges;    // 1: texels outside the valid ones repeat the nearest edge texel

out vec4 fragColor;

vec4 fetch(ivec2 p) {
    if (u_clampEdges == 1) return texelFetch(u_texture, clamp(p, u_valid.xy, u_valid.zw - 1), 0);
    if (p.x < u_valid.x || p.y < u_valid.y || p.x >= u_valid.z || p.y >= u_valid.w) return vec4(0.0);
    return texelFetch(u_texture, p, 0);
}

void main() {
    ivec2 o = ivec2(gl_FragCoord.xy);
    vec4 c;
    if (u_mode == 0) {
        ivec2 s = u_origin + 2 * o;
        c = 0.25 * (fetch(s) + fetch(s + ivec2(1, 0)) + fetch(s + ivec2(0, 1)) + fetch(s + ivec2(1, 1)));
    } else {
        ivec2 s = u_origin + o;
        c = u_weights[0] * fetch(s);
        for (int i = 1; i <= u_radius; i++) {
            c += u_weights[i] * (fetch(s + i * u_direction) + fetch(s - i * u_direction));
        }
    }
    fragColor = u_tint.a >= 0.0 ? u_tint * c.a : c;
}
