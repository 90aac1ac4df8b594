#version 300 es
// batch-texture.frag multiplied by a premultiplied colour (v_color: the tint, a
// replicator's instance colour, times the quad's alpha) instead of the alpha alone: one
// input more, for the few quads that have a tint.
precision highp float;

uniform sampler2D u_texture;

in vec4 v_coord;
flat in vec4 v_color;
flat in vec4 v_params;

out vec4 fragColor;

void main() {
    vec4 t = texture(u_texture, clamp(v_coord.xy, v_params.xy, v_coord.zw));
    t = mod(v_params.w, 2.0) > 0.5 ? t.bgra : t;
    t.a = v_params.w > 1.5 ? 1.0 : t.a;
    fragColor = t * v_color;
}
