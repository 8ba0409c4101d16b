#!/usr/bin/env bash
# Prepares .device/ here for tests/bench/gpu-run.sh on the GPU machine (which
# has no GStreamer, OpenCL loader, OpenCV or opencv-data): the runtime
# packages, a release build, the OpenCV oracle bundle, the Haar cascades and
# GStreamer's PNM decoder (for PGM training images).  Needs ../shared.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
../shared/device/make-bundle.sh
[ -f .device/build/build.ninja ] || \
  meson setup .device/build -Dbuildtype=release -Dtests=enabled
ninja -C .device/build
tests/fetch-data.sh .device/build/tests/oracle/clv-gray-pgm >/dev/null
tests/oracle/bundle-oracle.sh .device/build /tmp/oracle-bundle
tar -C /tmp -cJf .device/oracle.tar.xz oracle-bundle
rm -rf .device/opencv4 .device/extra-plugins
mkdir -p .device/opencv4 .device/extra-plugins
cp -r /usr/share/opencv4/haarcascades /usr/share/opencv4/lbpcascades .device/opencv4/
cp /usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstpnm.so .device/extra-plugins/
du -sh .device
