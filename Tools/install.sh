#!/usr/bin/env bash
# Installs Lamina's C library: liblamina.so (with the Swift runtime it needs, in
# <prefix>/lib/lamina/), include/lamina.h and lib/pkgconfig/lamina.pc, so that
#   cc app.c $(pkg-config --cflags --libs lamina)
# works (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig for a prefix pkg-config does not search).
#
#   bash Tools/install.sh [--prefix /usr/local] [--configuration release|debug] [--install-dependencies]
#
# It installs no system package unless asked (--install-dependencies runs Tools/setup.sh):
# otherwise it names the Debian packages that are missing and stops. The library exports
# only the C API (lamina_*: the linker version script Tools/lamina.map).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=/usr/local
configuration=release
dependencies=check
while [ $# -gt 0 ]; do
  case "$1" in
    --install-dependencies) dependencies=install; shift ;;
    --prefix) prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#*=}; shift ;;
    --configuration) configuration=$2; shift 2 ;;
    --configuration=*) configuration=${1#*=}; shift ;;
    *) echo "install: unknown argument '$1' (use --prefix DIR, --configuration release|debug, --install-dependencies)" >&2; exit 2 ;;
  esac
done
if [ "$dependencies" = install ]; then bash Tools/setup.sh; else bash Tools/setup.sh --check; fi
version=$(sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/LaminaModel/Version.swift)
set +e
swift build -c "$configuration" --product LaminaC -Xlinker --version-script="$PWD/Tools/lamina.map" 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]'
status=${PIPESTATUS[0]}
set -e
[ "$status" = 0 ] || { echo "install: the build failed" >&2; exit 1; }
built=$(swift build -c "$configuration" --show-bin-path -Xlinker --version-script="$PWD/Tools/lamina.map")/libLaminaC.so
lib=$prefix/lib
mkdir -p "$lib/lamina" "$prefix/include" "$lib/pkgconfig"
# The Swift runtime libraries it links (from the toolchain), beside it: the installed
# library does not depend on where the toolchain is.
ldd "$built" | awk '/\/swift\/linux\// { print $3 }' | while read -r dep; do cp -L "$dep" "$lib/lamina/"; done
install -m 0755 "$built" "$lib/liblamina.so.$version"
patchelf --set-soname liblamina.so.0 --set-rpath '$ORIGIN/lamina' "$lib/liblamina.so.$version"
ln -sf "liblamina.so.$version" "$lib/liblamina.so.0"
ln -sf liblamina.so.0 "$lib/liblamina.so"
install -m 0644 Sources/CLamina/include/lamina.h "$prefix/include/lamina.h"
cat > "$lib/pkgconfig/lamina.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: lamina
Description: Core-Animation-style layer compositor for Linux (EGL + OpenGL ES 3)
Version: $version
Requires: cairo
Requires.private: egl glesv2 gbm
Libs: -L\${libdir} -llamina -Wl,-rpath,\${libdir}
Cflags: -I\${includedir}
PC
echo "installed Lamina $version ($configuration) into $prefix: $(du -h "$lib/liblamina.so.$version" | cut -f1) liblamina.so.$version, $(ls "$lib/lamina" | wc -l) Swift runtime libraries in $lib/lamina"
