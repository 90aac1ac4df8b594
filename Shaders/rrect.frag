#version 300 es
// A rounded rectangle with analytic, antialiased coverage: filled, or as a border ring
// of u_borderWidth inside its edge. Distances are in the quad's own points; the screen
// derivatives of the position turn them into pixels (an isotropic estimate, smooth
// across the distance field's creases), so edges stay one pixel soft under any scale,
// rotation or perspective. With u_clip set it writes no colour and discards what lies outside
// (coverage below one half): the shape of a stencil clip.
precision highp float;

uniform vec4 u_color;        // premultiplied
uniform vec2 u_size;         // the rectangle's size in points
uniform float u_radius;      // corner radius in points
uniform float u_borderWidth; // 0: filled
uniform bool u_clip;

in vec2 v_local;
out vec4 fragColor;

// Signed distance to a rounded rectangle centred at the origin (negative inside).
float roundedRectDistance(vec2 p, vec2 halfSize, float radius) {
    float r = min(radius, min(halfSize.x, halfSize.y));
    vec2 q = abs(p) - halfSize + r;
    return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - r;
}

void main() {
    vec2 halfSize = 0.5 * u_size;
    vec2 p = v_local * u_size - halfSize;
    float d = roundedRectDistance(p, halfSize, u_radius);
    vec2 px = dFdx(p), py = dFdy(p);
    float pixel = max(sqrt(0.5 * (dot(px, px) + dot(py, py))), 1e-5); // points per pixel
    float coverage = clamp(0.5 - d / pixel, 0.0, 1.0);
    if (u_borderWidth > 0.0) {
        vec2 innerHalf = halfSize - u_borderWidth;
        if (innerHalf.x > 0.0 && innerHalf.y > 0.0) {
            float inner = roundedRectDistance(p, innerHalf, max(u_radius - u_borderWidth, 0.0));
            coverage *= clamp(0.5 + inner / pixel, 0.0, 1.0);
        }
    }
    if (u_clip) {
        if (coverage < 0.5) discard;
        fragColor = vec4(0.0);
        return;
    }
    fragColor = u_color * coverage;
}
