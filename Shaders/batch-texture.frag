#version 300 es
// Batched texture quads: a premultiplied texture, faded by the quad's alpha. Two inputs
// (llvmpipe sets up, bins and interpolates each input of the fragment shader for every
// triangle on the drawing thread; the alpha and the flags ride with the clamp rectangle):
//   v_coord   xy: the texture coordinate; zw: the clamp rectangle's max u, max v (the same
//             at the quad's four corners: interpolated between equal values, unchanged)
//   v_params  xy: the clamp rectangle's min u, min v; z: the alpha; w: flags (1: swap red
//             and blue, 2: alpha reads as 1)
// The texture coordinate is clamped to the clamp rectangle: an atlas entry's rectangle
// inset by half a texel, which samples like CLAMP_TO_EDGE on the entry alone; an unbounded
// one for other quads. No branches: on llvmpipe a branch on a per-quad value still runs
// both sides for every pixel.
// (Derivatives, hence the choice between minification and magnification filters, come
// from the clamped coordinate: they differ from the unclamped ones only where sampling is
// pinned to an entry's edge texels, which both filters read alike, unless the quad
// minifies along one axis and magnifies along the other.)
// The flags read the texel in another byte order than the texture's own: 1 swaps red and
// blue (BGRA data in an RGBA texture, or the reverse), 2 makes alpha read as 1 (BGRX):
// textures of mixed byte order (an atlas page) draw in one batch.
// batch-texture-tinted.frag is the same, multiplied by a colour (a replicator's instances).
precision highp float;

uniform sampler2D u_texture;

in vec4 v_coord;
flat in vec4 v_params;

out vec4 fragColor;

void main() {
    vec4 t = texture(u_texture, clamp(v_coord.xy, v_params.xy, v_coord.zw));
    t = mod(v_params.w, 2.0) > 0.5 ? t.bgra : t;
    t.a = v_params.w > 1.5 ? 1.0 : t.a;
    fragColor = t * v_params.z;
}
