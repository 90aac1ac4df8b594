#!/usr/bin/env bash
# Tools/setup.sh [--tests] [--check]
# Installs, idempotently, the Debian 12 packages Lamina builds and tests with: EGL,
# OpenGL ES, GBM, Cairo and Pango headers, the DejaVu fonts, Mesa's drivers (llvmpipe works without a GPU),
# glslang-tools (shader validation in the tests); with --tests also qemu and busybox for the
# GBM test VM (Tools/vm/run-in-vm.sh), and SDL2, Xvfb and xdotool for the real host program
# (Examples/SDLHost), GLFW (Examples/GLFW), GTK 4 (Examples/GTK) and Qt 6 (Examples/Qt) the tests run in X windows. Nothing is done when everything is present.
# Run it (bash Tools/setup.sh); it needs root (or sudo) only when something is missing.
# --check installs nothing: it names what is missing (and how to get it) and fails.
set -euo pipefail
check_only=0
for a in "$@"; do [ "$a" = --check ] && check_only=1; done

lamina_packages=(pkg-config libegl-dev libgles-dev libgbm-dev libdrm-dev libwayland-dev libegl-mesa0 libgl1-mesa-dri libgbm1
                 libcairo2-dev libpango1.0-dev fonts-dejavu-core glslang-tools patchelf)
if [ "${1:-}" = "--tests" ] || [ "${1:-}" = "--vm" ]; then
  lamina_packages+=(qemu-system-x86 busybox-static xz-utils libsdl2-dev libglfw3-dev libgtk-4-dev qt6-base-dev libqt6opengl6-dev xvfb xdotool weston)
fi

lamina_missing=()
for p in "${lamina_packages[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || lamina_missing+=("$p")
done
if [ ${#lamina_missing[@]} -gt 0 ] && [ "$check_only" = 1 ]; then
  echo "missing Debian packages: ${lamina_missing[*]}" >&2
  echo "install them with: sudo apt-get install --no-install-recommends ${lamina_missing[*]}" >&2
  echo "(or run Tools/install.sh --install-dependencies, which runs Tools/setup.sh)" >&2
  exit 1
fi
if [ ${#lamina_missing[@]} -gt 0 ]; then
  echo "setup: installing ${lamina_missing[*]}" >&2
  sudo_cmd=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root to apt-get install ${lamina_missing[*]}" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  # (sudo drops the environment: the setting goes through env.)
  apt=("${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
  # Install from the current lists if they have the packages; refresh them otherwise.
  "${apt[@]}" install -y -qq --no-install-recommends "${lamina_missing[@]}" >/dev/null 2>&1 || {
    "${apt[@]}" update -qq
    "${apt[@]}" install -y -qq --no-install-recommends "${lamina_missing[@]}" >/dev/null
  }
fi

command -v swift >/dev/null || { echo "setup: no 'swift' on PATH: install the Swift 6 toolchain (swift.org) first" >&2; exit 1; }
