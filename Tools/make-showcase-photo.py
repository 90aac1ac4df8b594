#!/usr/bin/env python3
"""Writes Examples/photo.png, the showcase's stand-in photograph: a 192×128 landscape
(sky gradient, sun, two hills, a lake) drawn procedurally with zlib + struct only."""
import math, os, struct, sys, zlib

W, H = 192, 128

def mix(a, b, t):
    t = min(1.0, max(0.0, t))
    return tuple(int(round(a[i] + (b[i] - a[i]) * t)) for i in range(3))

def pixel(x, y):
    sky = mix((40, 90, 180), (250, 190, 120), y / 80)
    c = sky
    # sun with a soft edge
    d = math.hypot(x - 140, y - 48)
    if d < 18:
        c = mix((255, 240, 170), c, max(0.0, (d - 14) / 4))
    far = 78 + 10 * math.sin(x / 23.0)
    near = 92 + 14 * math.sin(x / 37.0 + 1.3)
    if y > far:
        c = mix((70, 110, 120), (40, 80, 90), min(1, (y - far) / 30))
    if y > near:
        c = mix((60, 130, 60), (30, 80, 30), min(1, (y - near) / 30))
    if y > 112:   # lake reflecting the sky
        c = mix(mix((40, 90, 180), (250, 190, 120), (128 - y) / 80), (20, 40, 90), 0.35)
    return c + (255,)

raw = b"".join(b"\x00" + b"".join(struct.pack("BBBB", *pixel(x, y)) for x in range(W)) for y in range(H))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Examples", "photo.png")
open(out, "wb").write(png)
print("wrote", os.path.normpath(out))
