#!/usr/bin/env bash
# Regenerates Sources/CWayland's protocol code (checked in: building needs only
# libwayland-dev). Needs wayland-scanner (libwayland-bin) and wayland-protocols.
set -euo pipefail
cd "$(dirname "$0")/../Sources/CWayland"
for p in stable/xdg-shell/xdg-shell unstable/linux-dmabuf/linux-dmabuf-unstable-v1; do
  n=$(basename "$p")
  wayland-scanner client-header "/usr/share/wayland-protocols/$p.xml" "include/$n-client-protocol.h"
  wayland-scanner private-code "/usr/share/wayland-protocols/$p.xml" "$n-protocol.c"
done
