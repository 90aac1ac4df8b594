#version 300 es
// Nine-slice stretching (CALayer.contentsCenter) of a texture into one quad.
// The destination, u_destSize points, is split like the source: caps (u_caps: left,
// top, right, bottom, in points, already shrunk proportionally when they do not fit)
// keep their size, the edges stretch along one axis, the centre along both. Each
// destination point is mapped piecewise to a point of the source sub-image (unit
// coordinates within u_sourceRect), so any contents — an image or drawn content — stretch
// without being redrawn. A zero-width (or zero-height) centre replicates the single
// column (row) of texels at its position.
precision highp float;

uniform sampler2D u_texture;
uniform float u_alpha;
uniform vec2 u_destSize;   // points
uniform vec4 u_caps;       // left, top, right, bottom (points)
uniform vec4 u_center;     // x, y, width, height: unit rectangle of the sub-image
uniform vec4 u_sourceRect;    // the sub-image (contentsRect) in unit texture coordinates
uniform vec2 u_texels;     // the sub-image's size in texels

in vec2 v_local;
out vec4 fragColor;

// Maps a destination coordinate p (0…size) to the source's unit coordinate along one axis.
float slice(float p, float size, float capStart, float capEnd, float c0, float cw, float texels) {
    if (p < capStart) return p / capStart * c0;
    if (p > size - capEnd) return (c0 + cw) + (p - (size - capEnd)) / capEnd * (1.0 - c0 - cw);
    if (cw <= 0.0) {
        float column = clamp(floor(c0 * texels), 0.0, texels - 1.0);
        return (column + 0.5) / texels;
    }
    float middle = size - capStart - capEnd;
    return c0 + (middle > 0.0 ? (p - capStart) / middle : 0.5) * cw;
}

void main() {
    vec2 p = v_local * u_destSize;
    vec2 unit = vec2(slice(p.x, u_destSize.x, u_caps.x, u_caps.z, u_center.x, u_center.z, u_texels.x),
                     slice(p.y, u_destSize.y, u_caps.y, u_caps.w, u_center.y, u_center.w, u_texels.y));
    fragColor = texture(u_texture, u_sourceRect.xy + unit * u_sourceRect.zw) * u_alpha;
}
