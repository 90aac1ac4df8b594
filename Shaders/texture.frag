#version 300 es
// A premultiplied texture, faded by u_alpha.
precision mediump float;

uniform sampler2D u_texture;
uniform float u_alpha;

in vec2 v_texCoord;
out vec4 fragColor;

void main() {
    fragColor = texture(u_texture, v_texCoord) * u_alpha;
}
