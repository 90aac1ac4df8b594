#!/usr/bin/env bash
# The C API's tests: installs Lamina's C library into a temporary prefix (Tools/install.sh),
# then builds and runs — against the installed library, through pkg-config — the C, C++
# and Rust examples (each checks pixels), the C error-path and coverage tests and the
# C-API fuzzer (10⁴ sequences; LAMINA_FUZZ_SEQUENCES=N for another count), and compiles the
# header as strict C99 and as C++17. Prints "✔ capi: …"/"✘ capi: …" per check, the build
# times, and "capi: N passed, N failed". Extra arguments go to install.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d /tmp/lamina-capi.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0; failed=0
ok() { echo "✔ capi: $1"; passed=$((passed + 1)); }
ko() { echo "✘ capi: $1"; failed=$((failed + 1)); }
# Runs a command with its output in a file ($1), and says how long it took.
timed() { local out=$1; shift; local start=$SECONDS; "$@" >"$out" 2>&1; local s=$?; echo "   $(basename "$out" .txt): $((SECONDS - start)) s"; return $s; }

prefix=$work/prefix
if timed "$work/install.txt" bash Tools/install.sh --prefix "$prefix" "$@"; then
  ok "Tools/install.sh --prefix (liblamina.so, lamina.h, lamina.pc): $(tail -1 "$work/install.txt")"
else
  tail -30 "$work/install.txt"; ko "Tools/install.sh failed"; echo "capi: $passed passed, $failed failed"; exit 1
fi
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
lib=$(readlink -f "$prefix/lib/liblamina.so")
echo "   liblamina: $(du -h "$lib" | cut -f1); it needs: $(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
# The Swift runtime beside it: FoundationEssentials only (Foundation would bring ICU, 39 MB).
runtime=$(du -cb "$prefix/lib/lamina"/* | tail -1 | cut -f1)
if ls "$prefix/lib/lamina" | grep -qE '^(lib_FoundationICU|libFoundation|libFoundationInternationalization)\.so$'; then
  ko "runtime: Foundation or ICU is installed again ($(ls "$prefix/lib/lamina" | tr '\n' ' ')): a library module imports Foundation (use FoundationEssentials, docs/c-api.md)"
else
  ok "runtime: $((runtime / 1048576)) MB of Swift runtime in lib/lamina, no Foundation or ICU"
fi

# The ABI: the library exports exactly the committed list of lamina_* functions (the
# version script Tools/lamina.map hides every Swift symbol), and every function the header
# declares is among them. A change to the C API updates Tools/lamina.symbols in the same commit.
nm -D --defined-only "$lib" | awk '$2 ~ /^[A-Z]$/ && $2 != "A" {print $3}' | sed 's/@.*//' | sort > "$work/exported.txt"
grep -oE 'lamina_[a-z0-9_]+ *\(' "$prefix/include/lamina.h" | sed 's/ *($//' | grep -v '_fn$' | sort -u > "$work/declared.txt"
if diff -u Tools/lamina.symbols "$work/exported.txt" >"$work/abi.txt" && [ -z "$(comm -23 "$work/declared.txt" "$work/exported.txt")" ] \
   && ! grep -qv '^lamina_' "$work/exported.txt"; then
  ok "ABI: liblamina.so exports exactly Tools/lamina.symbols ($(wc -l <"$work/exported.txt") lamina_* functions, every one the header declares; no Swift symbol)"
else
  cat "$work/abi.txt"; echo "   declared but not exported: $(comm -23 "$work/declared.txt" "$work/exported.txt" | tr '\n' ' ')"
  ko "ABI: the exported symbols differ from Tools/lamina.symbols (update it with the C API change, or fix the export)"
fi

header=$prefix/include/lamina.h
if printf '#include <lamina.h>\nint main(void) { return lamina_api_version() == LAMINA_API_VERSION ? 0 : 1; }\n' \
   | cc -std=c99 -Wall -Wextra -Werror -pedantic -x c - $(pkg-config --cflags --libs lamina) -o "$work/c99" 2>"$work/c99.txt" && "$work/c99"; then
  ok "lamina.h compiles as C99 with -Wall -Wextra -Werror -pedantic, and links"
else cat "$work/c99.txt"; ko "lamina.h as C99"; fi
if printf '#include <lamina.h>\nint main() { lamina_rect r{0, 0, 1, 1}; (void)r; return lamina_api_version() == LAMINA_API_VERSION ? 0 : 1; }\n' \
   | c++ -std=c++17 -Wall -Wextra -Werror -pedantic -x c++ - $(pkg-config --cflags --libs lamina) -o "$work/cxx17" 2>"$work/cxx17.txt" && "$work/cxx17"; then
  ok "lamina.h compiles as C++17 with -Wall -Wextra -Werror -pedantic, and links"
else cat "$work/cxx17.txt"; ko "lamina.h as C++17"; fi

run() {   # name, build command…; then runs $work/$name and checks its exit status
  local name=$1; shift
  echo "   building $name: $*"
  if ! timed "$work/$name-build.txt" "$@"; then cat "$work/$name-build.txt"; ko "$name: the build failed"; return; fi
}
check_run() {  # name, binary, args…
  local name=$1 bin=$2; shift 2
  if (cd "$work" && "$bin" "$@") >"$work/$name.txt" 2>&1; then sed 's/^/   /' "$work/$name.txt" | tail -4; ok "$name"
  else cat "$work/$name.txt"; ko "$name"; fi
}

# The C code of docs/c-api.md, compiled and run as it is written: inside a main(), but a
# block after a line "<!-- c: before main -->" (functions a later block uses) before it.
{
  printf '#include <lamina.h>\n#include <stdio.h>\n'
  awk '/^<!-- c: before main -->$/ { top = 1 } /^```c$/ { p = 1; next } /^```/ { p = 0; top = 0 } p && top' docs/c-api.md
  printf 'int main(void) {\n'
  awk '/^<!-- c: before main -->$/ { top = 1 } /^```c$/ { p = 1; next } /^```/ { p = 0; top = 0 } p && !top' docs/c-api.md
  printf 'return lamina_live_handles() == 4 ? 0 : 1;\n}\n'
} >"$work/doc-snippet.c"
if cc -std=c99 -Wall -Wextra -Werror -pedantic "$work/doc-snippet.c" $(pkg-config --cflags --libs lamina) -o "$work/doc-snippet" 2>"$work/doc-snippet.txt" \
   && (cd "$work" && ./doc-snippet) >>"$work/doc-snippet.txt" 2>&1 && [ -s "$work/out.png" ]; then
  ok "the C code of docs/c-api.md compiles (C99, -Werror) and runs: it writes out.png"
else cat "$work/doc-snippet.txt"; ko "the C code of docs/c-api.md"; fi

# The toolkit code of docs/embedding.md ("The minimal code, toolkit by toolkit"): each C or
# C++ block after a <!-- c: MODULE HEADER… --> or <!-- c++: MODULE HEADER… --> comment,
# compiled against that toolkit's headers (pkg-config MODULE) and lamina.h.
embedding_blocks=0 embedding_failed=0
while IFS= read -r spec; do
  lang=${spec%% *}; rest=${spec#* }; n=${rest%% *}; rest=${rest#* }; module=${rest%% *}; headers=${rest#* }
  ext=c; [ "$lang" = "c++" ] && ext=cpp
  file="$work/embedding-$n.$ext"
  { for h in $headers; do echo "#include <$h>"; done; echo '#include <lamina.h>'
    awk -v n="$n" '/^```(c|cpp)$/ { k++; if (k == n) { p = 1; next } } /^```$/ { p = 0 } p' docs/embedding.md; } >"$file"
  embedding_blocks=$((embedding_blocks + 1))
  if [ "$ext" = c ]; then compile=(cc -std=c99 -Wall -Wextra -Werror -fsyntax-only "$file")
  else compile=(c++ -std=c++17 -Wall -Wextra -Werror -fPIC -fsyntax-only "$file"); fi
  if ! "${compile[@]}" $(pkg-config --cflags "$module" lamina) >"$work/embedding-$n.txt" 2>&1; then
    echo "   docs/embedding.md block $n ($lang, $module):"; sed 's/^/     /' "$work/embedding-$n.txt" | head -20
    embedding_failed=$((embedding_failed + 1))
  fi
done < <(awk '/^<!-- c(\+\+)?: .* -->$/ { sub(/^<!-- /, ""); sub(/ -->$/, ""); sub(/:/, ""); pending = $0; next }
              /^```(c|cpp)$/ { k++; if (pending != "") { split(pending, w, " "); rest = substr(pending, length(w[1]) + 2); print w[1], k, rest }; pending = ""; next }
              { if ($0 !~ /^$/) pending = pending }' docs/embedding.md)
if [ "$embedding_blocks" -ge 5 ] && [ "$embedding_failed" = 0 ]; then
  ok "the toolkit code of docs/embedding.md compiles against each toolkit's headers ($embedding_blocks blocks: SDL2, GLFW, GTK 4, Qt 6, EGL)"
else ko "the toolkit code of docs/embedding.md: $embedding_failed of $embedding_blocks blocks failed to compile"; fi

run c-example cc -std=c99 -Wall -Wextra -Werror -pedantic Examples/C/example.c $(pkg-config --cflags --libs lamina egl glesv2) -o "$work/c-example"
[ -x "$work/c-example" ] && check_run "C example (offscreen PNG and the host's own EGL context, pixels checked)" "$work/c-example" c-example.png
run c-errors cc -std=c99 -Wall -Wextra -Werror -pedantic Tests/CAPI/errors.c $(pkg-config --cflags --libs lamina) -lpthread -o "$work/c-errors"
[ -x "$work/c-errors" ] && check_run "C error paths and handle lifetimes (bad scene, missing PNG, too-large target, wrong thread, double release, 10⁴ layers)" "$work/c-errors"
run c-coverage cc -std=c99 -Wall -Wextra -Werror -pedantic Tests/CAPI/coverage.c $(pkg-config --cflags --libs lamina) -o "$work/c-coverage"
[ -x "$work/c-coverage" ] && check_run "C API coverage (run loop descriptor and turns, transactions, displayNow, dirty rectangles, BGRA pixels, scenes, getters, frame requests, hit testing, effects, presentation, retained mode)" "$work/c-coverage" "$repo/Examples/showcase.json"
run c-gpu cc -std=c99 -Wall -Wextra -Werror -pedantic Tests/CAPI/gpu.c $(pkg-config --cflags --libs lamina glesv2) -o "$work/c-gpu"
[ -x "$work/c-gpu" ] && check_run "C API: GL layers (own GL, on demand, asynchronous, drawable options), shader layers and effects with uniforms, their errors (pixels and draw counts checked)" "$work/c-gpu"
# A real GLFW application with a Lamina HUD, in an X window under Xvfb, clicked with
# xdotool: with GLFW's defaults (desktop GL through GLX), a 3.3 core profile, and ES 3 through EGL.
run glfw-host cc -std=c99 -Wall -Wextra -Werror -pedantic Examples/GLFW/glfw-host.c $(pkg-config --cflags --libs glfw3 lamina glesv2) -o "$work/glfw-host"
if [ -x "$work/glfw-host" ]; then
  if timeout 120 bash Tools/glfw-host-test.sh "$work/glfw-host" >"$work/glfw.txt" 2>&1; then
    grep -E "ready|passed" "$work/glfw.txt" | sed 's/^/   /'; ok "GLFW application under Xvfb (GLX compatibility, GLX 3.3 core, EGL ES 3): HUD over its own GL scene, hover, a real click and a key through a Lamina window and its button view, its GL state intact, Lamina's own device beside its context"
  else cat "$work/glfw.txt"; ko "GLFW application under Xvfb (needs xvfb, xdotool, libglfw3-dev: Tools/setup.sh --tests)"; fi
fi
# A real GTK 4 application: a GtkGLArea (GDK's desktop GL context, GLX and EGL) with a
# Lamina HUD in ::render, input from GTK's event controllers, renders driven by frame requests.
run gtk-host cc -std=c99 -Wall -Wextra -Werror Examples/GTK/gtk-host.c $(pkg-config --cflags --libs gtk4 epoxy lamina) -o "$work/gtk-host"
if [ -x "$work/gtk-host" ]; then
  if timeout 120 bash Tools/gtk-host-test.sh "$work/gtk-host" >"$work/gtk.txt" 2>&1; then
    grep -E "realized|after the|passed" "$work/gtk.txt" | sed 's/^/   /'; ok "GTK 4 application under Xvfb (GtkGLArea, GLX and EGL): HUD in ::render over its own GL scene, a click and a key through GTK's controllers, its GL state intact, no render in an idle second"
  else cat "$work/gtk.txt"; ko "GTK 4 application under Xvfb (needs xvfb, xdotool, libgtk-4-dev: Tools/setup.sh --tests)"; fi
fi
# A real Qt 6 application: a QOpenGLWindow (Qt's desktop GL context, GLX and EGL) with a
# Lamina HUD in paintGL, Qt's mouse and key events, paints driven by frame requests.
run qt-host c++ -std=c++17 -Wall -Wextra -Werror -fPIC Examples/Qt/qt-host.cpp $(pkg-config --cflags --libs Qt6OpenGL Qt6Gui lamina) -o "$work/qt-host"
if [ -x "$work/qt-host" ]; then
  if timeout 150 bash Tools/qt-host-test.sh "$work/qt-host" >"$work/qt.txt" 2>&1; then
    grep -E "initialized|after the|passed" "$work/qt.txt" | sed 's/^/   /'; ok "Qt 6 application under Xvfb (QOpenGLWindow: GLX compatibility, GLX 3.3 core, EGL): HUD in paintGL over its own GL scene, a click and a key through Qt's events, its GL state intact, no paint in an idle second"
  else cat "$work/qt.txt"; ko "Qt 6 application under Xvfb (needs xvfb, xdotool, qt6-base-dev, libqt6opengl6-dev: Tools/setup.sh --tests)"; fi
fi
run cpp-example c++ -std=c++17 -Wall -Wextra -Werror -pedantic Examples/CPP/example.cpp $(pkg-config --cflags --libs lamina) -o "$work/cpp-example"
[ -x "$work/cpp-example" ] && check_run "C++ example (RAII wrapper, pixels checked)" "$work/cpp-example" cpp-example.png
run rust-example cargo build --offline --quiet --manifest-path Examples/Rust/Cargo.toml --target-dir "$work/rust"
[ -x "$work/rust/debug/lamina-rust-example" ] && check_run "Rust example (extern \"C\", pixels checked)" "$work/rust/debug/lamina-rust-example"

# The fuzzer: seeded random sequences of every kind of call, with valid, released, wrong-kind,
# NULL and garbage handles, extreme numbers and callbacks that call in again, 25 sequences
# per process (a failing process has its seeds run again alone); no sequence may end
# through a signal or hang (Tools/capi-fuzz.sh).
run c-fuzz cc -std=c99 -Wall -Wextra -Werror -pedantic -O1 Tests/CAPI/fuzz.c $(pkg-config --cflags --libs lamina) -lm -o "$work/c-fuzz"
if [ -x "$work/c-fuzz" ]; then
  if bash Tools/capi-fuzz.sh "$work/c-fuzz" "${LAMINA_FUZZ_SEQUENCES:-10000}" 200 >"$work/c-fuzz.txt" 2>&1; then
    sed 's/^/   /' "$work/c-fuzz.txt"; ok "the C-API fuzzer: no sequence crashed or hung"
  else cat "$work/c-fuzz.txt"; ko "the C-API fuzzer"; fi
fi

# The GBM backend (a GBM target, dma-buf contents made with libgbm) inside the test VM,
# which has a DRM device (Tools/vm/run-in-vm.sh); the test command always runs it
# (LAMINA_CAPI_VM=1), a bare run of this script only when asked.
run c-gbm cc -std=c99 -Wall -Wextra -Werror -pedantic Tests/CAPI/gbm.c $(pkg-config --cflags --libs lamina gbm) -o "$work/c-gbm"
if [ "${LAMINA_CAPI_VM:-0}" = 1 ] && [ -x "$work/c-gbm" ]; then
  if (cd "$work" && GBM_ALWAYS_SOFTWARE=1 bash "$repo/Tools/vm/run-in-vm.sh" "$work/c-gbm") >"$work/c-gbm.txt" 2>&1; then
    grep -v DRM_IOCTL_MODE_CREATE_DUMB "$work/c-gbm.txt" | sed 's/^/   /' | tail -3; ok "GBM target and dma-buf contents from libgbm, in the VM (pixels checked)"
  else grep -v DRM_IOCTL_MODE_CREATE_DUMB "$work/c-gbm.txt" | tail -20; ko "GBM target and dma-buf contents in the VM"; fi
else
  echo "   (the GBM test runs in the VM with LAMINA_CAPI_VM=1, as Tools/test.sh does)"
fi

# A benchmark, not a test: printed, never asserted (medians, ratio to the cheapest call).
if cc -std=c99 -O2 Tools/capi-bench.c $(pkg-config --cflags --libs lamina) -o "$work/capi-bench" 2>"$work/bench-build.txt"; then
  "$work/capi-bench" | sed 's/^/   benchmark: /'
else cat "$work/bench-build.txt"; fi

echo "capi: $passed passed, $failed failed"
[ "$failed" = 0 ]
