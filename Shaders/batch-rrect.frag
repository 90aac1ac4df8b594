#version 300 es
// Batched rounded rectangles with analytic, antialiased coverage: filled, or as a border
// ring of the given width inside the edge. v_params: the rectangle's size in points (xy),
// corner radius (z), border width (w; 0: filled). Distances are in the quad's own points;
// the screen derivatives of the position turn them into pixels (an isotropic estimate,
// smooth across the distance field's creases), so edges stay one pixel soft under any
// scale, rotation or perspective. With v_flags.x set (a stencil clip's shape) it writes no
// colour and discards what lies outside (coverage below one half).
precision highp float;

in vec2 v_coord;          // position inside the quad, 0…1
flat in vec4 v_color;     // premultiplied
flat in vec4 v_params;    // size (points), radius, border width
flat in vec2 v_flags;     // x: clip shape

out vec4 fragColor;

// Signed distance to a rounded rectangle centred at the origin (negative inside).
float roundedRectDistance(vec2 p, vec2 halfSize, float radius) {
    float r = min(radius, min(halfSize.x, halfSize.y));
    vec2 q = abs(p) - halfSize + r;
    return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - r;
}

void main() {
    vec2 size = v_params.xy;
    float radius = v_params.z, borderWidth = v_params.w;
    vec2 halfSize = 0.5 * size;
    vec2 p = v_coord * size - halfSize;
    float d = roundedRectDistance(p, halfSize, radius);
    vec2 px = dFdx(p), py = dFdy(p);
    float pixel = max(sqrt(0.5 * (dot(px, px) + dot(py, py))), 1e-5); // points per pixel
    float coverage = clamp(0.5 - d / pixel, 0.0, 1.0);
    if (borderWidth > 0.0) {
        vec2 innerHalf = halfSize - borderWidth;
        if (innerHalf.x > 0.0 && innerHalf.y > 0.0) {
            float inner = roundedRectDistance(p, innerHalf, max(radius - borderWidth, 0.0));
            coverage *= clamp(0.5 + inner / pixel, 0.0, 1.0);
        }
    }
    if (v_flags.x > 0.5) {
        if (coverage < 0.5) discard;
        fragColor = vec4(0.0);
        return;
    }
    fragColor = v_color * coverage;
}
