#version 300 es
// Shared vertex stage: a unit quad (0..1)² placed by one matrix.
// u_transform maps unit-quad space to clip space (Lamina's only y flip lives in the
// target's projection, built on the CPU). u_texRect selects the source rectangle of
// the texture in normalized coordinates, v = 0 at the image's top row.
precision highp float;

layout(location = 0) in vec2 a_position;

uniform mat4 u_transform;
uniform vec4 u_texRect; // x, y, width, height

out vec2 v_texCoord;

void main() {
    v_texCoord = u_texRect.xy + a_position * u_texRect.zw;
    gl_Position = u_transform * vec4(a_position, 0.0, 1.0);
}
