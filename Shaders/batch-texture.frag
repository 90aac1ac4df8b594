#version 300 es
// Batched texture quads: a premultiplied texture, faded by the quad's alpha (v_color).
// The texture coordinate is clamped to the quad's clamp rectangle (v_params: min u, min v,
// max u, max v): an atlas entry's rectangle inset by half a texel, which samples like
// CLAMP_TO_EDGE on the entry alone; an unbounded one for other quads. No branches: on
// llvmpipe a branch on a per-quad value still runs both sides for every pixel.
// (Derivatives, hence the choice between minification and magnification filters, come
// from the clamped coordinate: they differ from the unclamped ones only where sampling is
// pinned to an entry's edge texels, which both filters read alike, unless the quad
// minifies along one axis and magnifies along the other.)
// v_coord.zw (flags) read the texel in another byte order than the texture's own: z swaps
// red and blue (BGRA data in an RGBA texture, or the reverse), w makes alpha read as 1 (BGRX):
// textures of mixed byte order (an atlas page) draw in one batch.
precision highp float;

uniform sampler2D u_texture;

in vec4 v_coord;
flat in vec4 v_color;
flat in vec4 v_params;

out vec4 fragColor;

void main() {
    vec4 t = texture(u_texture, clamp(v_coord.xy, v_params.xy, v_params.zw));
    t = v_coord.z > 0.5 ? t.bgra : t;
    t.a = v_coord.w > 0.5 ? 1.0 : t.a;
    fragColor = t * v_color;
}
