#version 300 es
// A progress ring: the arc from 12 o'clock clockwise to `progress` (0…1), antialiased.
precision highp float;
in vec2 lamina_uv;
uniform vec2 lamina_size;
uniform float progress;
uniform vec4 tint;
out vec4 fragColor;
void main() {
    vec2 p = (lamina_uv - 0.5) * lamina_size;           // pixels from the centre, y down
    float radius = 0.5 * min(lamina_size.x, lamina_size.y);
    float r = length(p);
    float width = 0.16 * radius;
    float ring = clamp(width * 0.5 - abs(r - (radius - width * 0.5 - 1.0)) + 0.5, 0.0, 1.0);
    float angle = atan(p.x, -p.y) / 6.2831853 + 0.5;     // 0 at 6 o'clock… turned below
    angle = fract(angle + 0.5);                          // 0 at 12 o'clock, clockwise
    float on = angle <= progress ? 1.0 : 0.18;
    fragColor = vec4(tint.rgb, 1.0) * tint.a * ring * on;
}
