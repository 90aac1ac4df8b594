#version 300 es
// Batched rounded rectangles with analytic, antialiased coverage: filled, or as a border
// ring of the given width inside the edge. v_params: the rectangle's size in points (xy),
// corner radius (z), border width (w; 0: filled). Distances are in the quad's own points;
// the screen derivatives of the position turn them into pixels (an isotropic estimate,
// smooth across the distance field's creases), so edges stay one pixel soft under any
// scale, rotation or perspective. With v_coord.z set (a stencil clip's shape) it writes no
// colour and discards what lies outside (coverage below one half). v_coord.w holds the corner
// shape: bits 0-3 the corners left square (1: min x min y, 2: max x min y, 4: min x max y,
// 8: max x max y, in the quad's coordinates), bit 4 continuous corners (a superellipse of
// exponent 3.258816 over 1.528665 radii of each edge, as `CornerShape.signedDistance`).
precision highp float;

in vec4 v_coord;          // xy: position inside the quad, 0…1; z: clip shape, w: corner bits
flat in vec4 v_color;     // premultiplied
flat in vec4 v_params;    // size (points), radius, border width

out vec4 fragColor;

const float EXTENT = 1.528665;
const float EXPONENT = 3.258816;

// Signed distance to a rounded rectangle centred at the origin (negative inside), the
// corner of p's quadrant rounded by `radius` (0: square), circular or continuous.
float roundedRectDistance(vec2 p, vec2 halfSize, float radius, bool continuous) {
    float shortHalf = min(halfSize.x, halfSize.y);
    vec2 a = abs(p);
    if (radius <= 0.0) return max(a.x - halfSize.x, a.y - halfSize.y);
    if (!continuous) {
        float r = min(radius, shortHalf);
        vec2 q = a - halfSize + r;
        return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - r;
    }
    float e = min(radius * EXTENT, shortHalf);
    vec2 u = (a - halfSize + e) / e;
    vec2 c = max(u, 0.0);
    if (c.x <= 0.0 && c.y <= 0.0) return (max(u.x, u.y) - 1.0) * e;
    float norm = pow(pow(c.x, EXPONENT) + pow(c.y, EXPONENT), 1.0 / EXPONENT);
    vec2 g = pow(c / norm, vec2(EXPONENT - 1.0));
    return (norm - 1.0) / length(g) * e;
}

void main() {
    vec2 size = v_params.xy;
    float radius = v_params.z, borderWidth = v_params.w;
    vec2 halfSize = 0.5 * size;
    vec2 p = v_coord.xy * size - halfSize;
    int bits = int(v_coord.w + 0.5);
    int corner = p.x < 0.0 ? (p.y < 0.0 ? 1 : 4) : (p.y < 0.0 ? 2 : 8);
    if ((bits & corner) != 0) radius = 0.0;
    bool continuous = (bits & 16) != 0;
    float d = roundedRectDistance(p, halfSize, radius, continuous);
    vec2 px = dFdx(p), py = dFdy(p);
    float pixel = max(sqrt(0.5 * (dot(px, px) + dot(py, py))), 1e-5); // points per pixel
    float coverage = clamp(0.5 - d / pixel, 0.0, 1.0);
    if (borderWidth > 0.0) {
        vec2 innerHalf = halfSize - borderWidth;
        if (innerHalf.x > 0.0 && innerHalf.y > 0.0) {
            float inner = roundedRectDistance(p, innerHalf, max(radius - borderWidth, 0.0), continuous);
            coverage *= clamp(0.5 + inner / pixel, 0.0, 1.0);
        }
    }
    if (v_coord.z > 0.5) {
        if (coverage < 0.5) discard;
        fragColor = vec4(0.0);
        return;
    }
    fragColor = v_color * coverage;
}
