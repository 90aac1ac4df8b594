#version 300 es
// Batched solid quads: a premultiplied colour per quad.
precision mediump float;

flat in vec4 v_color;

out vec4 fragColor;

void main() {
    fragColor = v_color;
}
