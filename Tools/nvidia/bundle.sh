#!/usr/bin/env bash
# Packs what the NVIDIA device machine (no Swift, no network) needs to run Lamina's CLI, its
# test binary and the C API's C programs: the built executables at their .build paths, the
# installed C library and the programs built against it, the Swift runtime and the C
# libraries they load (not glibc, libstdc++ or GL: the GL dispatch libraries come from
# Debian's libglvnd packages in .gl/, the vendor library from the machine's driver), and
# the fonts and fontconfig set-up the pixel tests draw text with. Writes .devkit/bundle.tar.xz
# (ignored by git). Run Tools/nvidia/run.sh there. See docs/testing.md, "On an NVIDIA GPU".
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --build-tests
swift build --product lamina-runloop-probe
swift build -c release --product lamina
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/.build/debug" "$stage/.build/release" "$stage/.devkit/lib" "$stage/.devkit/fonts" "$stage/.devkit/fontconfig"
bins=(.build/debug/LaminaPackageTests.xctest .build/debug/lamina .build/debug/lamina-runloop-probe .build/release/lamina)
for b in "${bins[@]}"; do cp "$b" "$stage/$b"; done
# The C API as a C program gets it: installed (Tools/install.sh) into .devkit/prefix of this
# checkout, whose path the programs' rpath names (run.sh links /work/main to the checkout
# there), and the C and C++ programs Tools/capi-tests.sh runs, built through pkg-config.
rm -rf .devkit/prefix
bash Tools/install.sh --prefix "$PWD/.devkit/prefix" >/dev/null
export PKG_CONFIG_PATH=$PWD/.devkit/prefix/lib/pkgconfig
capi=$stage/.devkit/capi
mkdir -p "$capi"
cc -std=c99 -O1 Examples/C/example.c $(pkg-config --cflags --libs lamina egl glesv2) -o "$capi/c-example"
cc -std=c99 -O1 Tests/CAPI/errors.c $(pkg-config --cflags --libs lamina) -lpthread -o "$capi/c-errors"
cc -std=c99 -O1 Tests/CAPI/coverage.c $(pkg-config --cflags --libs lamina) -o "$capi/c-coverage"
cc -std=c99 -O1 Tests/CAPI/gpu.c $(pkg-config --cflags --libs lamina glesv2) -o "$capi/c-gpu"
cc -std=c99 -O1 Tests/CAPI/fuzz.c $(pkg-config --cflags --libs lamina) -lm -o "$capi/c-fuzz"
c++ -std=c++17 -O1 Examples/CPP/example.cpp $(pkg-config --cflags --libs lamina) -o "$capi/cpp-example"
cp -a .devkit/prefix "$stage/.devkit/prefix"
bins+=("$capi"/*)
# Every library they load, less the ones the machine must supply itself.
skip='/(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|libEGL|libGLESv2|libGLdispatch|libGLX|libGL|libOpenGL)\.so'
for b in "${bins[@]}"; do ldd "$b"; done | awk '$3 ~ /^\// {print $3}' | sort -u | grep -Ev "$skip" |
    while read -r lib; do cp -L "$lib" "$stage/.devkit/lib/"; done
cp -rL /usr/share/fonts/. "$stage/.devkit/fonts/"
cp -rL /etc/fonts/. "$stage/.devkit/fontconfig/"
# The carried config reads the carried fonts only (the machine's own, if any, would change text pixels).
sed -i "s#<dir>/usr/share/fonts</dir>#<dir>FONTDIR</dir>#; s#<dir prefix=\"xdg\">fonts</dir>##; s#<dir>/usr/local/share/fonts</dir>##; s#<dir>~/.fonts</dir>##" "$stage/.devkit/fontconfig/fonts.conf"
rm -rf .devkit/prefix   # (in the bundle only: .devkit travels whole)
mkdir -p .devkit
tar -C "$stage" -cf - .build .devkit | xz -T0 -6 > .devkit/bundle.tar.xz
ls -la .devkit/bundle.tar.xz
