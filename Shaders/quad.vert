#version 300 es
// Shared vertex stage: a unit quad (0..1)² placed by one matrix.
// u_transform maps unit-quad space to clip space (Lamina's only y flip lives in the
// target's projection, built on the CPU). u_texRect selects the source rectangle of
// the texture in normalized coordinates, v = 0 at the image's top row. v_local is the
// position inside the quad (0..1), for shapes computed per fragment.
precision highp float;

layout(location = 0) in vec2 a_position;

uniform mat4 u_transform;
uniform vec4 u_texRect; // x, y, width, height

out vec2 v_texCoord;
out vec2 v_local;

void main() {
    v_texCoord = u_texRect.xy + a_position * u_texRect.zw;
    v_local = a_position;
    gl_Position = u_transform * vec4(a_position, 0.0, 1.0);
}
