#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Packs oracle-detect (and oracle-eigen and oracle-sar, where they were built) with every
# shared library they load, the dynamic loader included, and the
# frontal-face cascades (OUT_DIR/cascades/), so that OpenCV's timing runs on
# a machine without OpenCV (the GPU benchmark machine) whatever its
# distribution:
#
#   tests/oracle/bundle-oracle.sh [BUILD_DIR [OUT_DIR]]
#       (defaults: build, BUILD_DIR/oracle-bundle)
#   OUT_DIR/oracle-detect --cascade ... --image ... --threads 16 --repeat 20
#   OUT_DIR/oracle-eigen bench ...
#   OUT_DIR/oracle-sar bench ...
set -euo pipefail
build=${1:-build}
out=${2:-$build/oracle-bundle}
exe=$build/tests/oracle/oracle-detect
[ -x "$exe" ] || { echo "$exe is missing: install libopencv-dev and rebuild" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/lib" "$out/bin" "$out/cascades"
cp /usr/share/opencv4/haarcascades/haarcascade_frontalface_*.xml "$out/cascades/"
for exe in "$exe" "$build/tests/oracle/oracle-eigen" "$build/tests/oracle/oracle-sar"; do
  [ -x "$exe" ] || continue
  name=$(basename "$exe")
  cp "$exe" "$out/bin/"
  loader=
  while read -r line; do
    case $line in
      *"=> /"*) cp -L "$(echo "$line" | sed 's/.*=> \([^ ]*\).*/\1/')" "$out/lib/" ;;
      /*ld-linux*) loader=$(echo "$line" | cut -d' ' -f1); cp -L "$loader" "$out/lib/" ;;
    esac
  done < <(ldd "$exe")
  [ -n "$loader" ] || { echo "no dynamic loader found in ldd $exe" >&2; exit 1; }

  cat > "$out/$name" <<WRAP
#!/bin/sh
# OpenCV $(pkg-config --modversion opencv4) oracle with its own libraries and loader.
here=\$(cd "\$(dirname "\$0")" && pwd)
exec "\$here/lib/$(basename "$loader")" --library-path "\$here/lib" "\$here/bin/$name" "\$@"
WRAP
  chmod +x "$out/$name"
done
echo "$out: $(du -sh "$out" | cut -f1), $(ls "$out/lib" | wc -l) libraries"
