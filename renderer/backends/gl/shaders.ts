/**
 * GLSL ES 3.00 for the gl backend. The fragment shader evaluates the compositing formula, written
 * once in docs/asset-format.md ("Compositing"): exact texel fetches at the output pixel, linear light,
 * one encode to sRGB at the end; the plate by the inverse homography per fragment.
 * Framebuffer row y holds picture row y, so readPixels yields rows top to bottom.
 */
export const VERTEX_SHADER = /* glsl */ `
precision highp float;
in vec3 position;
void main() { gl_Position = vec4(position.xy, 0.0, 1.0); }
`;

export const FRAGMENT_SHADER = /* glsl */ `
precision highp float;
precision highp int;
precision highp usampler2D;
uniform usampler2D uBase;     // RGB8 as R8UI, three texels per pixel
uniform sampler2D uToLinear;  // R32F 256 × 1: the cpu kernel's exact 8-bit sRGB → linear table
uniform sampler2D uPaint;     // R8
uniform usampler2D uDiffuse;  // R16UI, linear / 65535
uniform usampler2D uSpecular; // R16UI, linear / 65535
uniform sampler2D uShadow;    // R8
uniform sampler2D uCoverage;  // R8
uniform bool uHasShadow;
uniform bool uTransparent;
uniform vec3 uBackTop;        // backdrop, linear, first row
uniform vec3 uBackBottom;     // backdrop, linear, last row
uniform float uHeight;
uniform vec3 uColor;          // linear
uniform vec3 uNeutral;        // linear
uniform vec2 uCalib;          // diffuse gain, specular floor
uniform float uKnee;
uniform sampler2D uPlate;     // RGBA32F premultiplied linear, padded
uniform bool uHasPlate;
uniform mat3 uHinv;           // output pixel → unit plate square
uniform vec4 uPlateGeom;      // pw, ph, pad, -
uniform vec2 uPlateTex;       // tw, th
uniform vec4 uBBox;           // x0, y0, x1, y1
uniform float uPlateWhite;
out vec4 outColor;

// the table rather than pow(): drivers' pow() is a few ulp off, and the cpu kernel decodes by table
float s2l(uint code) { return texelFetch(uToLinear, ivec2(int(code), 0), 0).r; }
// rounded here to the code the cpu kernel stores, round(255 · encode(c)), then stored exactly: the
// float → unorm8 conversion of the render target is left no rounding of its own to do
float l2s(float c) {
  c = clamp(c, 0.0, 1.0);
  float e = c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
  return floor(e * 255.0 + 0.5) / 255.0;
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec3 b = vec3(
    s2l(texelFetch(uBase, ivec2(p.x * 3, p.y), 0).r),
    s2l(texelFetch(uBase, ivec2(p.x * 3 + 1, p.y), 0).r),
    s2l(texelFetch(uBase, ivec2(p.x * 3 + 2, p.y), 0).r));
  vec3 c = b;
  float m = texelFetch(uPaint, p, 0).r;
  if (m > 0.0) {
    float D = float(texelFetch(uDiffuse, p, 0).r) / 65535.0;
    float S = float(texelFetch(uSpecular, p, 0).r) / 65535.0;
    vec3 rest = clamp(b - m * (uNeutral * D + vec3(S)), vec3(0.0), vec3(1.0 - m));
    vec3 paint = uColor * (uCalib.x * D) + vec3(max(S - uCalib.y, 0.0));
    float mx = max(paint.r, max(paint.g, paint.b));
    if (mx > uKnee) {
      float x = (mx - uKnee) / (1.0 - uKnee);
      paint *= (uKnee + (1.0 - uKnee) * x / (1.0 + x)) / mx;
    }
    c = rest + m * paint;
  }
  float sh = uHasShadow ? texelFetch(uShadow, p, 0).r : 0.0;
  float alpha = 1.0;
  if (uTransparent) {
    float a = texelFetch(uCoverage, p, 0).r;
    float t = uHeight > 1.0 ? float(p.y) / (uHeight - 1.0) : 0.0;
    vec3 g = mix(uBackTop, uBackBottom, t);
    vec3 pm = clamp(c - (1.0 - a) * g, vec3(0.0), vec3(a));
    alpha = a + (1.0 - a) * sh;
    c = alpha > 0.0 ? pm / alpha : vec3(0.0);
  } else {
    c *= 1.0 - sh;
  }
  if (uHasPlate && float(p.x) >= uBBox.x && float(p.y) >= uBBox.y && float(p.x) < uBBox.z && float(p.y) < uBBox.w) {
    vec3 h = uHinv * vec3(vec2(p) + 0.5, 1.0);
    if (h.z > 0.0) {
      vec2 uv = h.xy / h.z;
      vec2 tc = (uPlateGeom.zz + uv * uPlateGeom.xy) / uPlateTex;
      vec4 s = texture(uPlate, tc);
      float light = min(dot(b, vec3(0.2126, 0.7152, 0.0722)) / uPlateWhite, 1.0);
      c = c * (1.0 - s.a) + s.rgb * light;
    }
  }
  outColor = vec4(l2s(c.r), l2s(c.g), l2s(c.b), alpha);
}
`;
