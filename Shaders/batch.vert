#version 300 es
// Batched quads (RenderPass's quad batches): every vertex carries its own clip-space
// position, computed on the CPU from its quad's transform and the target's projection,
// so quads of different transforms share one draw call. z is always 0 (Lamina draws
// without depth), so the position comes as x, y, w; w keeps perspective correct (the
// rasterizer interpolates v_coord perspective-correctly from it).
//   a_coord   texture quads: the texture coordinate; rounded rectangles: the position
//             inside the quad, 0…1 (v = 0 at the top)
//   a_color   premultiplied colour (texture quads: the alpha in all four channels)
//   a_params  texture quads: the clamp rectangle; rounded rectangles: size, radius, border
//   a_flags   texture quads: swap red and blue, alpha reads as 1; rounded rectangles: clip
// The per-quad values are the same at the quad's four corners: flat, never interpolated.
precision highp float;

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec2 a_coord;
layout(location = 2) in vec4 a_color;
layout(location = 3) in vec4 a_params;
layout(location = 4) in vec2 a_flags;

out vec2 v_coord;
flat out vec4 v_color;
flat out vec4 v_params;
flat out vec2 v_flags;

void main() {
    v_coord = a_coord;
    v_color = a_color;
    v_params = a_params;
    v_flags = a_flags;
    gl_Position = vec4(a_position.xy, 0.0, a_position.z);
}
