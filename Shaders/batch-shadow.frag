#version 300 es
// Batched shadows of (rounded) rectangles, analytic: the shape's coverage convolved with a
// Gaussian of standard deviation σ, no offscreen pass. The quad is the shape grown by 3σ
// on every side; v_coord is the position inside it (0…1). v_params: the quad's size in
// points (xy), the corner radius (z), σ in points (w).
// A rectangle's shadow is exact: the product of two 1-D integrals, each a difference of
// error functions. For rounded corners the 1-D integral along x is exact for each row of
// the shape (the row's extent, from the corner circle), and the integral along y is done
// numerically over ±3σ with Gaussian weights.
precision highp float;

in vec4 v_coord;
flat in vec4 v_color;     // premultiplied
flat in vec4 v_params;

out vec4 fragColor;

// erf, Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7).
float erf1(float x) {
    float s = sign(x), a = abs(x);
    float t = 1.0 / (1.0 + 0.3275911 * a);
    float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-a * a);
    return s * y;
}

// ∫ over [lo, hi] of the unit Gaussian of σ centred at x.
float span(float x, float lo, float hi, float sigma) {
    float k = 0.70710678 / sigma;
    return 0.5 * (erf1((hi - x) * k) - erf1((lo - x) * k));
}

void main() {
    vec2 quad = v_params.xy;
    vec2 local = v_coord.xy * quad;
    vec2 px = dFdx(local), py = dFdy(local);
    float pixel = max(sqrt(0.5 * (dot(px, px) + dot(py, py))), 1e-5); // points per pixel
    // A sharp shadow (σ → 0) keeps an antialiased edge: at least ⅖ of a pixel of blur.
    float sigma = max(v_params.w, 0.4 * pixel), radius = v_params.z;
    vec2 halfSize = 0.5 * quad - 3.0 * v_params.w;
    vec2 p = v_coord.xy * quad - 0.5 * quad;          // from the shape's centre
    float r = min(radius, min(halfSize.x, halfSize.y));
    float alpha;
    // Away from the corners (every row within 3σ has the full width, or the pixel is deep
    // inside the straight part horizontally) the rounded box's shadow is the rectangle's.
    bool straight = abs(p.y) + 3.0 * sigma <= halfSize.y - r || abs(p.x) + 3.0 * sigma <= halfSize.x - r;
    if (r <= 0.0 || straight) {
        alpha = span(p.x, -halfSize.x, halfSize.x, sigma) * span(p.y, -halfSize.y, halfSize.y, sigma);
    } else {
        // Integrate over rows y' = p.y + s, s in [−3σ, 3σ] (the shape's rows only).
        const int N = 6;
        float lo = max(p.y - 3.0 * sigma, -halfSize.y), hi = min(p.y + 3.0 * sigma, halfSize.y);
        alpha = 0.0;
        if (hi > lo) {
            float step = (hi - lo) / float(N);
            for (int i = 0; i < N; i++) {
                float y = lo + (float(i) + 0.5) * step;
                float dy = y - p.y;
                float w = exp(-0.5 * dy * dy / (sigma * sigma)) * step / (2.50662827 * sigma);
                // The row's half-width: the corner circle cuts it near the top and bottom.
                float e = abs(y) - (halfSize.y - r);
                float inset = e > 0.0 ? r - sqrt(max(r * r - e * e, 0.0)) : 0.0;
                float hw = halfSize.x - inset;
                alpha += w * span(p.x, -hw, hw, sigma);
            }
        }
    }
    fragColor = v_color * alpha;
}
