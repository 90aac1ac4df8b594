#version 300 es
// A mask's alpha, for "destination in" blending (the destination times the mask's alpha:
// RenderPass.multiplyByAlpha). Outside the mask's image (texture coordinates past 0…1)
// the alpha is 0: nothing of the masked image shows there.
precision highp float;

in vec2 v_texCoord;
uniform sampler2D u_texture;

out vec4 fragColor;

void main() {
    bool inside = all(greaterThanEqual(v_texCoord, vec2(0.0))) && all(lessThanEqual(v_texCoord, vec2(1.0)));
    fragColor = vec4(inside ? texture(u_texture, v_texCoord).a : 0.0);
}
