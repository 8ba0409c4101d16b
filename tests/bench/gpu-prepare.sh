#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Prepares .device/ here for tests/bench/gpu-run.sh on a GPU server that
# has no GStreamer, OpenCL loader, OpenCV or opencv-data): the runtime
# packages, a release build, the OpenCV oracle bundle, the Haar cascades and
# GStreamer's PNM decoder (for PGM training images).  Needs ../shared.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
../shared/device/make-bundle.sh
# libyaml (the model reader), gst-rtsp-server (the RTSP camera tests), libvpx (plugins-good's VP8 decoder and encoder, for the webm videos of the
# tests and examples) and the runtime libraries of roioverlay (Pango/Cairo
# and a font), roiexport (json-glib, libmosquitto) and the mosquitto broker
# its tests start.  GDAL
# (over 100 MB of dependencies) stays here: the gdal elements are a plugin of
# their own, so the main plugin loads without it.
extra=(libjson-glib-1.0-0 libmosquitto1 mosquitto mosquitto-clients libcjson1
       libwrap0 libdlt2 libpango-1.0-0 libpangocairo-1.0-0 libpangoft2-1.0-0
       libcairo2 libharfbuzz0b libfribidi0 libthai0 libdatrie1 libthai-data
       libfontconfig1 fontconfig-config fonts-dejavu-core libfreetype6
       libpixman-1-0 libx11-6 libxcb1 libxcb-render0 libxcb-shm0 libxext6
       libxrender1 libx11-data libxau6 libxdmcp6 libbsd0 libmd0
       libgraphite2-3 libbrotli1
       libvpx7 libbz2-1.0 libnsl2 libtirpc3 libtirpc-common libyaml-0-2
       libgstrtspserver-1.0-0)
( cd .device/debs && apt-get download "${extra[@]}" >/dev/null 2>&1 )
# Fontconfig there must look for fonts where setup.sh unpacks them.
cat >> .device/setup.sh <<'SETUP'
if [ -d /opt/gstcl/usr/share/fonts ]; then
  cat > /opt/gstcl/fonts.conf <<FC
<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>/opt/gstcl/usr/share/fonts</dir><cachedir>/tmp/gstcl-fontcache</cachedir>
<include ignore_missing="yes">/opt/gstcl/etc/fonts/conf.d</include></fontconfig>
FC
  export FONTCONFIG_FILE=/opt/gstcl/fonts.conf
fi
export PATH=/opt/gstcl/usr/sbin:$PATH
# Some carried libraries (libtirpc3) install under /lib, not /usr/lib.
export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/gstcl/lib/x86_64-linux-gnu
SETUP
[ -f .device/build/build.ninja ] || \
  meson setup .device/build -Dbuildtype=release -Dtests=enabled
# GDAL is not on such a server: the clvisiongdal plugin and its tests are
# not built there.
meson configure .device/build -Dgdal=disabled
ninja -C .device/build
tests/fetch-data.sh .device/build/tests/oracle/clv-gray-pgm >/dev/null
tests/oracle/bundle-oracle.sh .device/build /tmp/oracle-bundle
tar -C /tmp -cJf .device/oracle.tar.xz oracle-bundle
rm -rf .device/opencv4 .device/extra-plugins
mkdir -p .device/extra-plugins
# The cascades travel compressed (a tenth of their 10 MB): the checkout
# and .device must stay under 64 MiB together.
tar -C /usr/share -cJf .device/opencv4.tar.xz opencv4/haarcascades opencv4/lbpcascades
cat >> .device/setup.sh <<'SETUP'
[ -d .device/opencv4 ] || tar -C .device -xJf .device/opencv4.tar.xz
SETUP
cp /usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstpnm.so .device/extra-plugins/
du -sh .device
