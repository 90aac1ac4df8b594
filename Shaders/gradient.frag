#version 300 es
// GradientLayer: axial, radial and conic gradients evaluated per pixel, interpolated in
// premultiplied colour, then dithered (±½ of an 8-bit step of ordered noise) so that
// 8-bit targets show no bands. v_local is the position in the layer's bounds, 0…1 (y down).
//   u_type 0 axial: t = projection of p on start→end
//   u_type 1 radial: Core Animation's ellipse about start whose radii are |end − start| on
//                   each axis, in unit coordinates: t = |(p − start) / |end − start||
//   u_type 2 conic: t = the angle about start from the direction of end, / 2π (clockwise
//                   on screen, y down)
precision highp float;

in vec2 v_local;
uniform int u_type;
uniform vec2 u_size;             // the layer's size in points
uniform vec2 u_start, u_end;     // unit coordinates of the bounds
uniform int u_count;
uniform vec4 u_colors[16];       // premultiplied
uniform float u_locations[16];   // increasing
uniform float u_dither;          // 1: dither

out vec4 fragColor;

void main() {
    vec2 p = v_local * u_size, a = u_start * u_size, b = u_end * u_size;
    vec2 ab = b - a;
    float t;
    if (u_type == 0) {
        float len2 = dot(ab, ab);
        t = len2 > 0.0 ? dot(p - a, ab) / len2 : 0.0;
    } else if (u_type == 1) {
        vec2 radii = abs(u_end - u_start);
        t = length((v_local - u_start) / max(radii, vec2(1e-6)));
    } else {
        vec2 d = p - a;
        float angle = atan(d.y, d.x) - atan(ab.y, ab.x);
        t = fract(angle / 6.28318530718);
    }
    vec4 c = u_colors[0];
    if (t >= u_locations[u_count - 1]) {
        c = u_colors[u_count - 1];
    } else if (t > u_locations[0]) {
        for (int i = 1; i < 16; i++) {
            if (i >= u_count) break;
            if (t <= u_locations[i]) {
                float span = u_locations[i] - u_locations[i - 1];
                float f = span > 0.0 ? (t - u_locations[i - 1]) / span : 1.0;
                c = mix(u_colors[i - 1], u_colors[i], f);
                break;
            }
        }
    }
    // Interleaved gradient noise (Jimenez 2014), centred on zero.
    float noise = fract(52.9829189 * fract(dot(gl_FragCoord.xy, vec2(0.06711056, 0.00583715)))) - 0.5;
    c = clamp(c + u_dither * noise / 255.0, 0.0, 1.0);
    c.rgb = min(c.rgb, vec3(c.a));
    fragColor = c;
}
