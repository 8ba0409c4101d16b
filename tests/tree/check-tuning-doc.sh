#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fails when a CLVISION_TUNE value read by the sources (a string literal
# passed to clv_tune_* / clv_device_tune_* / clv_eigen_tune_pow2 or the
# detector's tune_int) is not in docs/tuning.md's tables, or when the
# tables list one no source reads any more.
#   tests/tree/check-tuning-doc.sh [SOURCE_ROOT]
set -euo pipefail
cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}"
doc=docs/tuning.md
# Calls may span lines: the sources are read as one line.
read_by_sources=$(cat common/*.c gst/*/*.c tools/*.c | tr '\n' ' ' |
    grep -o -E '\b(clv_(device_|eigen_)?tune_(int|string|pow2)|tune_int) \([^";{]*"[A-Z][A-Z0-9_]*"' |
    grep -o '"[A-Z0-9_]*"' | tr -d '"' | sort -u)
documented=$(grep -o -E '^\| `[A-Z][A-Z0-9_]*`(, `[A-Z][A-Z0-9_]*`)* \|' "$doc" |
    grep -o -E '[A-Z][A-Z0-9_]+' | sort -u)
status=0
for v in $(comm -23 <(echo "$read_by_sources") <(echo "$documented")); do
  echo "$doc does not describe the tuning value $v"; status=1
done
for v in $(comm -13 <(echo "$read_by_sources") <(echo "$documented")); do
  case $v in CLVISION_*|XDG_*) continue ;; esac    # environment variables
  echo "$doc describes $v, which no source reads"; status=1
done
[ $status -eq 0 ] && echo "$doc describes the $(wc -w <<<"$read_by_sources") tuning values the sources read"
exit $status
