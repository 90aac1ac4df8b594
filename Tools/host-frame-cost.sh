#!/usr/bin/env bash
# What a Lamina HUD costs the frames of real toolkit applications: installs the C library
# into a temporary prefix, builds the GLFW, GTK 4 and Qt 6 examples against it (pkg-config,
# as their users build them) and runs each host's test under Xvfb (xdotool input, every
# self-check) with LAMINA_HOST_MEASURE=N (300 by default): after its checks each run renders
# N more frames, every other one without the HUD (Examples/frame-cost.h), and prints the
# median frame time (the application's scene to glFinish) without and with the HUD, their
# ratio and Lamina's CPU per frame. Needs Tools/setup.sh --tests.
#   bash Tools/host-frame-cost.sh [FRAMES]
set -uo pipefail
cd "$(dirname "$0")/.."
export LAMINA_HOST_MEASURE=${1:-300}
work=$(mktemp -d /tmp/lamina-hostcost.XXXXXX)
trap 'rm -rf "$work"' EXIT
bash Tools/install.sh --prefix "$work/prefix" >"$work/install.txt" 2>&1 || { tail -20 "$work/install.txt"; exit 1; }
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig
cc -std=c99 -O2 Examples/GLFW/glfw-host.c $(pkg-config --cflags --libs glfw3 lamina glesv2) -o "$work/glfw-host" || exit 1
cc -std=c99 -O2 Examples/GTK/gtk-host.c $(pkg-config --cflags --libs gtk4 epoxy lamina) -o "$work/gtk-host" || exit 1
c++ -std=c++17 -O2 -fPIC Examples/Qt/qt-host.cpp $(pkg-config --cflags --libs Qt6OpenGL Qt6Gui lamina) -o "$work/qt-host" || exit 1
status=0
for toolkit in glfw gtk qt; do
  if ! timeout 300 bash "Tools/$toolkit-host-test.sh" "$work/$toolkit-host" >"$work/$toolkit.txt" 2>&1; then
    cat "$work/$toolkit.txt"; echo "host-frame-cost: the $toolkit run failed"; status=1
  fi
  grep "frame cost" "$work/$toolkit.txt"
done
exit $status
