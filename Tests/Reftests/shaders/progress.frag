#version 300 es
precision highp float;
in vec2 lamina_uv;
uniform float progress;
uniform vec4 tint;
out vec4 fragColor;
void main() {
    fragColor = lamina_uv.x < progress ? vec4(tint.rgb * tint.a, tint.a) : vec4(0.0);
}
