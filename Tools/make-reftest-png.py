#!/usr/bin/env python3
"""Writes Tests/Reftests/quadrants.png without Lamina (zlib + struct only), so that a
reftest compares Lamina's rendering with an image it did not make. 40×40 px, opaque RGBA:
red, green / blue, and 50 % white composited over the scene's black background, which is
grey 128 (0.5 × 255 rounded)."""
import struct, zlib, sys, os

W = H = 40
def pixel(x, y):
    if y < 20:
        return (255, 0, 0, 255) if x < 20 else (0, 255, 0, 255)
    # bottom-right: 50 % white over opaque black = (128, 128, 128) opaque
    return (0, 0, 255, 255) if x < 20 else (128, 128, 128, 255)

raw = b"".join(b"\x00" + b"".join(struct.pack("BBBB", *pixel(x, y)) for x in range(W)) for y in range(H))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Tests", "Reftests", "quadrants.png")
open(out, "wb").write(png)
print("wrote", out)
