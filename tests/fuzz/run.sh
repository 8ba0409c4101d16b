#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fuzzes each parser with libFuzzer for SECONDS (default 60) per target,
# built with clang, AddressSanitizer and UndefinedBehaviorSanitizer in
# build-fuzz/ (CLV_FUZZ_BUILD_DIR).  Seeds: the committed corpus plus the
# real cascades of opencv-data (OpenCV's model fixture and a model written
# by clvision-eigen-train are in the corpus).  The committed corpus
# tests/fuzz/corpus/NAME is then minimised again (see below); a crashing
# input is left in build-fuzz/fuzz-artifacts/NAME/ and the script fails: fix
# the bug and commit the input as tests/fuzz/corpus/NAME/regress-WHAT.
#   nice -n 19 tests/fuzz/run.sh [SECONDS] [TARGET...]
#   (targets: cascade eigen-model strings)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(cascade eigen-model strings)
build=${CLV_FUZZ_BUILD_DIR:-build-fuzz}

for tool in clang meson ninja; do
  command -v $tool >/dev/null || { echo "$tool is missing: apt-get install clang libclang-rt-14-dev meson ninja-build" >&2; exit 1; }
done
if [ ! -f "$build/build.ninja" ]; then
  # Everything instrumented for coverage (fuzzer-no-link); only the fuzz
  # targets link libFuzzer's main.
  CC=clang meson setup "$build" -Dtests=enabled -Dexamples=disabled \
    -Dfuzzing=true -Dbuildtype=debugoptimized \
    -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args="-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined"
fi
ninja -C "$build" $(printf 'tests/fuzz/fuzz-%s ' "${targets[@]}")

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
  bin="$build/tests/fuzz/fuzz-$t"
  work="$build/fuzz-work/$t"
  artifacts="$build/fuzz-artifacts/$t/"
  # A finding of an earlier run was reported then (and is in the corpus
  # once fixed): only this run's count.
  rm -rf "$artifacts"
  mkdir -p "$work" "$artifacts"
  opts=() seeds=()
  case $t in
    # Inputs are cut to 64 KiB: with the whole real cascades (up to 2.6 MB)
    # as seeds the fuzzer manages ~80 inputs/s.  The few paths only whole
    # cascades reach are run by the replay in the suite, which loads them
    # whole.
    cascade) opts+=(-max_len=65536)
      for d in /usr/share/opencv4/haarcascades /usr/share/opencv4/lbpcascades; do
        [ -d "$d" ] && seeds+=("$d"); done ;;
  esac
  echo "== fuzz-$t for ${seconds}s"
  "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$artifacts" "${opts[@]}" \
    "$work" "tests/fuzz/corpus/$t" "${seeds[@]}" 2>&1 | tee "$build/fuzz-$t.log" \
    | grep -E '^(#[0-9]+ +(INITED|DONE)|stat::|==[0-9]+==ERROR|SUMMARY|.*runtime error)' || true
  if [ "${PIPESTATUS[0]}" -ne 0 ] || ls "$artifacts" | grep -q .; then
    echo "fuzz-$t: FINDING, see $build/fuzz-$t.log and $artifacts" >&2
    status=1
  fi
  # The committed corpus is kept minimal: the named inputs (seed-*, the
  # real files; regress-*, former findings) stay, and of everything else
  # (the earlier corpus and this run's) libFuzzer's merge keeps the fewest
  # small inputs that reach the same coverage.  The real cascades are not
  # copied: the replay loads them from opencv-data itself.
  corpus="tests/fuzz/corpus/$t"
  named="$build/fuzz-named/$t" pool="$build/fuzz-pool/$t" min="$build/fuzz-min/$t"
  rm -rf "$named" "$pool" "$min"
  mkdir -p "$named" "$pool" "$min"
  find "$corpus" -maxdepth 1 -type f \( -name 'seed-*' -o -name 'regress-*' \) \
    -exec cp -t "$named/" {} +
  # One cp per folder: an input in both (same name, same bytes) is copied
  # twice, which one cp refuses.
  for d in "$corpus" "$work"; do
    find "$d" -maxdepth 1 -type f -size -8k ! -name 'seed-*' \
      ! -name 'regress-*' -exec cp -t "$pool/" {} +
  done
  "$bin" -merge=1 -timeout=10 "$min" "$named" "$pool" >"$build/fuzz-$t-merge.log" 2>&1 || true
  # Keep only what the merge added beyond the named inputs.
  for f in "$named"/*; do rm -f "$min/$(sha1sum <"$f" | cut -c1-40)"; done
  find "$corpus" -maxdepth 1 -type f ! -name 'seed-*' ! -name 'regress-*' -delete
  cp "$min"/* "$corpus/" 2>/dev/null || true
  echo "fuzz-$t: corpus $(ls "$corpus" | wc -l) files, $(du -sk "$corpus" | cut -f1) KiB"
done
exit $status
