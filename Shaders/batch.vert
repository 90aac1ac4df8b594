#version 300 es
// Batched quads (RenderPass's quad batches): every vertex carries its own clip-space
// position, computed on the CPU from its quad's transform and the target's projection,
// so quads of different transforms share one draw call. z is always 0 (Lamina draws
// without depth), so the position comes as x, y, w; w keeps perspective correct (the
// rasterizer interpolates v_coord perspective-correctly from it).
//   a_coord   xy: texture quads: the texture coordinate; rounded rectangles: the position
//             inside the quad, 0…1 (v = 0 at the top). zw: texture quads: the clamp
//             rectangle's max u, max v; rounded rectangles: clip shape, corner bits
//   a_color   premultiplied colour (texture quads: the tint times the alpha)
//   a_params  texture quads: the clamp rectangle's min u, min v, the alpha, the flags;
//             rounded rectangles: size, radius, border
// Colour and params are the same at the quad's four corners: flat, never interpolated.
// v_coord's zw are the same at the four corners too, interpolated between equal values (so
// unchanged, to rounding): one output fewer, which llvmpipe's vertex processing and
// triangle set-up — on the drawing thread — pay for per vertex and per triangle. Each
// fragment shader reads only the inputs it needs (batch-texture.frag: v_coord and
// v_params), and llvmpipe sets up only those.
precision highp float;

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_coord;
layout(location = 2) in vec4 a_color;
layout(location = 3) in vec4 a_params;

out vec4 v_coord;
flat out vec4 v_color;
flat out vec4 v_params;

void main() {
    v_coord = a_coord;
    v_color = a_color;
    v_params = a_params;
    gl_Position = vec4(a_position.xy, 0.0, a_position.z);
}
