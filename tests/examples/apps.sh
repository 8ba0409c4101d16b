#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The application examples print the faces vjfacedetect finds, as OpenCV
# finds them (tests/data/golden), and the recognition of eigenrecognise.
#
#   apps.sh c BUILD_DIR       examples/app-c built standalone against a
#                             `meson install --destdir` of BUILD_DIR, run
#                             with the installed plugin
#   apps.sh python BUILD_DIR  examples/app-python/faces.py with the plugin,
#                             library and typelib of the same install;
#                             prints exactly what the C app prints
set -euo pipefail
mode=$1
build=$(realpath "$2")
src=${CLV_SOURCE_DIR:?}
cache=${CLV_DATA_CACHE:?}
golden=$CLV_TEST_DATA/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail () { echo "FAIL: $*" >&2; exit 1; }

# A small Eigenface model of two LFW labels (tests/data/make-lfw.py), for
# the --model output.
model=$tmp/model.yml
for label in 0 1; do
  mkdir -p "$tmp/train/person$label"
  cp "$cache"/lfw/faces/$label/0[0-6].pgm "$tmp/train/person$label/"
done
"$build/examples/clvision-eigen-train" --input "$tmp/train" --output "$model" \
  --size 25x25 --quiet || fail "clvision-eigen-train failed"

# "x y w h neighbors" of each face line of an app's output.
boxes () {
  sed -n 's/^  face [0-9]*: x=\([0-9]*\) y=\([0-9]*\) w=\([0-9]*\) h=\([0-9]*\) neighbors=\([0-9]*\) .*/\1 \2 \3 \4 \5/p' "$1"
}

# Runs the app ($@) on each image, checks its faces against OpenCV's.
check_images () {
  for image in astronaut grace_hopper; do
    "$@" "$cache/$image.pgm" > "$tmp/$image.out" \
      || fail "$* $image.pgm exited with $?"
    cat "$tmp/$image.out"
    head -1 "$tmp/$image.out" | grep -q '^frame 0 pts 0:00:00.000000000: [1-9][0-9]* faces\?$' \
      || fail "$image: no 'frame 0 ... N face(s)' line"
    [ "$(wc -l < "$tmp/$image.out")" -eq $(( $(boxes "$tmp/$image.out" | wc -l) + 1 )) ] \
      || fail "$image: a face line without box and detection fields"
    grep -v '^#' "$golden/$image.frontalface_default.s1.1.n3.txt" > "$tmp/$image.want"
    boxes "$tmp/$image.out" | diff "$tmp/$image.want" - \
      || fail "$image: faces differ from OpenCV's (left)"
    head -1 "$tmp/$image.out" | grep -q ": $(wc -l < "$tmp/$image.want") faces\?$" \
      || fail "$image: the face count differs from the face lines"
  done
  # With a model every face gets a name from it (labelsInfo).
  "$@" --model "$model" "$cache/astronaut.pgm" > "$tmp/named.out"
  cat "$tmp/named.out"
  grep -Eq '^  face 0: .* name=person[01] label_id=-?[0-9]+ distance=[0-9.]+ recognition_confidence=[0-9.]+$' "$tmp/named.out" \
    || fail "--model: no name, label_id, distance and confidence"
}

# BUILD_DIR installed into $tmp/root: $pc, $libdir and $plugin set, the
# library and plugin found through the environment.
install_build () {
  command -v meson >/dev/null || fail "meson is not installed (needed to install the build)"
  meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
  pc=$(find "$tmp/root" -name gstreamer-clvision-1.0.pc)
  [ -n "$pc" ] || fail "meson install put no gstreamer-clvision-1.0.pc"
  libdir=$(dirname "$(dirname "$pc")")
  plugin=$(find "$tmp/root" -name libgstclvision.so)
  [ -n "$plugin" ] || fail "meson install put no plugin"
  export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export GST_PLUGIN_PATH_1_0=$(dirname "$plugin")
  export GST_REGISTRY_1_0=$tmp/registry.bin
}

case $mode in
  c)
    install_build
    # Standalone: only the installed headers, library and .pc files, the
    # latter moved with the tree (prefix rewritten into the destdir).
    mkdir "$tmp/pc"
    for f in "$(dirname "$pc")"/*clvision*.pc; do
      sed "s|^prefix=|prefix=$tmp/root|" "$f" > "$tmp/pc/$(basename "$f")"
    done
    export PKG_CONFIG_PATH=$tmp/pc
    meson setup "$tmp/app-build" "$src/examples/app-c" >/dev/null \
      || fail "meson setup of examples/app-c against the installed .pc failed"
    ninja -C "$tmp/app-build" >/dev/null || fail "examples/app-c does not build"
    unset PKG_CONFIG_PATH
    check_images "$tmp/app-build/clvision-faces"
    ;;
  python)
    install_build
    typelib=$(find "$tmp/root" -name GstClvision-1.0.typelib)
    [ -n "$typelib" ] || fail "meson install put no GstClvision-1.0.typelib"
    export GI_TYPELIB_PATH=$(dirname "$typelib")
    check_images /usr/bin/python3 "$src/examples/app-python/faces.py"
    # Word for word what the C application prints.
    for image in astronaut grace_hopper; do
      "$build/examples/clvision-faces" "$cache/$image.pgm" | diff - "$tmp/$image.out" \
        || fail "$image: faces.py prints otherwise than clvision-faces (left)"
    done
    "$build/examples/clvision-faces" --model "$model" "$cache/astronaut.pgm" \
      | diff - "$tmp/named.out" || fail "--model: faces.py differs from clvision-faces"
    ;;
  *) fail "mode c or python" ;;
esac
echo "PASS"
