#!/bin/bash
# Call 8: ffb2902, the review's commit (queue_swap in vj_detect.cl, the sort's
# counts zeroed only for the bytes it passes over): unit-vj-gpu and
# check-vjfacedetect on the GPU, and one crowded canvas at a time (library,
# pinned, compared with the C reference).
source docs/bench/h100-2026-11-26d/scripts/common.sh
d=$out/call8
mkdir -p $d
python3 tests/run-built.py .device/build unit-vj-gpu check-vjfacedetect \
  --log $d/logs --map /usr/share/opencv4=$PWD/.device/opencv4 > $d/tests.txt 2>&1
tail -3 $d/tests.txt
.device/build/tests/bench/bench-vj --repeat 20 --batch 1 --pinned /tmp/faces/faces-16.pgm > $d/one.json 2>/dev/null
python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['frames'][0]; u=f['uber']; print('one crowded frame pinned %.3f det %.3f eq %s' % (u['ms_median'], u['detect_kernels_ms_median'], u.get('equal_to_reference')))" $d/one.json
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $out -czf $out/call8.tgz call8
