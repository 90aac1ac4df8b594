#version 300 es
// YUV to RGB, for external buffers whose planes were imported one by one (ExternalBuffer,
// conversion .lamina): the luma plane as R8 (R16 for P010), the chroma as one GR88
// (GR1616) plane of interleaved U, V — or two R8 planes. Sampled values are turned back
// into codes (u_codeScale: 255, or 65535/64 for P010's 10 bits in the top of 16), the
// range's offsets taken off (u_offset: 16/128 or 64/512 limited, 0/128 or 0/512 full),
// and u_matrix (the colour space's YCbCr-to-RGB matrix, with the range's scales folded
// in) gives R, G, B. Opaque: alpha 1, so the result is premultiplied as it is.
precision highp float;

uniform sampler2D u_plane0;
uniform sampler2D u_plane1;
uniform sampler2D u_plane2;
// 0: semi-planar (U, V in plane 1's red and green); 1: planar (U in plane 1, V in plane 2).
uniform int u_planar;
// 1: V comes before U (NV21, YV12).
uniform int u_swapUV;
uniform float u_codeScale;
uniform vec3 u_offset;
uniform mat3 u_matrix;

in vec2 v_texCoord;
out vec4 fragColor;

void main() {
    float y = texture(u_plane0, v_texCoord).r;
    vec2 c = u_planar == 1
        ? vec2(texture(u_plane1, v_texCoord).r, texture(u_plane2, v_texCoord).r)
        : texture(u_plane1, v_texCoord).rg;
    c = u_swapUV == 1 ? c.yx : c;
    vec3 codes = vec3(y, c) * u_codeScale - u_offset;
    fragColor = vec4(clamp(u_matrix * codes, 0.0, 1.0), 1.0);
}
