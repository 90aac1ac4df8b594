#version 300 es
// Batched quads of an external texture (GL_TEXTURE_EXTERNAL_OES): a dma-buf imported
// through an EGL image — a YUV frame (NV12, YUV420, P010) the driver converts to RGB as
// it samples, with the colour space and range given at import — faded by the quad's
// alpha and tint (v_color). As batch-texture.frag otherwise: the coordinate is clamped to
// the rectangle of v_params.xy and v_coord.zw; external buffers hold no alpha to reorder,
// so the flags (v_params.w) are unused.
#extension GL_OES_EGL_image_external_essl3 : require
precision highp float;

uniform samplerExternalOES u_texture;

in vec4 v_coord;
flat in vec4 v_color;
flat in vec4 v_params;

out vec4 fragColor;

void main() {
    vec4 t = texture(u_texture, clamp(v_coord.xy, v_params.xy, v_coord.zw));
    fragColor = t * v_color;
}
