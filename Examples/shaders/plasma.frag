#version 300 es
// Plasma from lamina_time (animating: drawn at every frame).
precision highp float;
in vec2 lamina_uv;
uniform float lamina_time;
out vec4 o;
void main() {
    vec2 p = lamina_uv * 6.0;
    float v = sin(p.x + lamina_time) + sin(p.y * 1.3 - lamina_time * 0.7) + sin((p.x + p.y) * 0.7 + lamina_time * 1.3);
    o = vec4(0.5 + 0.5 * sin(v), 0.5 + 0.5 * sin(v + 2.094), 0.5 + 0.5 * sin(v + 4.188), 1.0);
}
