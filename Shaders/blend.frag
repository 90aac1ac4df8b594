#version 300 es
// Separable blend modes (compositingFilter) on premultiplied colour, exactly as the W3C
// compositing spec writes them for premultiplied values (Sc, Sa source; Dc, Da backdrop):
//   result = Sc·(1 − Da) + Dc·(1 − Sa) + B(Sc, Sa, Dc, Da),  alpha = Sa + Da − Sa·Da
// (plus-lighter: min(1, S + D), alpha too). Drawn without blending: the output replaces the
// backdrop it was computed from. v_texCoord addresses the source image; the backdrop is the
// copy of the same pixels, addressed by the same unit coordinates.
precision highp float;

in vec2 v_texCoord;
uniform sampler2D u_texture;     // the layer's image (premultiplied)
uniform sampler2D u_backdrop;    // what lies under it (premultiplied)
uniform float u_alpha;           // the layer's opacity
uniform int u_mode;              // BlendMode's raw value

out vec4 fragColor;

vec3 blend(vec3 sc, float sa, vec3 dc, float da) {
    if (u_mode == 0) return sc * dc;                                        // multiply
    if (u_mode == 1) return sc * da + dc * sa - sc * dc;                    // screen
    if (u_mode == 2) {                                                      // overlay
        vec3 lo = 2.0 * sc * dc, hi = sa * da - 2.0 * (da - dc) * (sa - sc);
        return mix(hi, lo, step(2.0 * dc, vec3(da)));
    }
    if (u_mode == 3) return min(sc * da, dc * sa);                          // darken
    if (u_mode == 4) return max(sc * da, dc * sa);                          // lighten
    return sc * da + dc * sa - 2.0 * min(sc * da, dc * sa);                 // difference
}

void main() {
    vec4 s = texture(u_texture, v_texCoord) * u_alpha;
    vec4 d = texture(u_backdrop, v_texCoord);
    if (u_mode == 6) { fragColor = min(s + d, vec4(1.0)); return; }          // plus-lighter
    vec3 c = s.rgb * (1.0 - d.a) + d.rgb * (1.0 - s.a) + blend(s.rgb, s.a, d.rgb, d.a);
    fragColor = vec4(clamp(c, 0.0, 1.0), s.a + d.a - s.a * d.a);
}
