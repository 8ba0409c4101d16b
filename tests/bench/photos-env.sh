# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by bench-photos.sh and bench-floor.sh from the project's root,
# with their arguments [BUILD_DIR [OUT_DIR]]: $build (build), $out (OUT,
# else photos-out; made), the GPU server's environment where the build is
# .device/build (tests/bench/gpu-prepare.sh), and the cascades' root as
# $root and CLVISION_CASCADE_DIR: CASCADE_ROOT, else .device/opencv4 where
# gpu-prepare.sh put them, else /usr/share/opencv4.
build=${1:-build}
out=${2:-${OUT:-photos-out}}
mkdir -p "$out"
if [ -f .device/setup.sh ] && [ "$build" = .device/build ]; then
  source .device/setup.sh
fi
root=${CASCADE_ROOT:-}
[ -n "$root" ] || { [ -d .device/opencv4 ] && root=.device/opencv4 || root=/usr/share/opencv4; }
export CLVISION_CASCADE_DIR=$root/haarcascades
