#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fails when the tree's text speaks of how it was built rather than of what
# it is: issue numbers, work sessions, "the GPU machine", dated runs, the
# source papers cited without their titles, or DESIGN.md (which is not in
# the tree).  Raw benchmark data (docs/bench/), fuzz inputs and this script
# are not checked.  The record of how a figure was reached belongs in
# commit messages.
#   tests/tree/check-text.sh [SOURCE_ROOT]
set -euo pipefail
cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files)
else
  mapfile -t files < <(find . -path ./.git -prune -o -type f -print | sed 's|^\./||')
fi
checked=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  case "$f" in
    docs/bench/*|tests/fuzz/corpus/*|build*/*|.device/*|COPYING) continue ;;
    tests/tree/check-text.sh) continue ;;
  esac
  grep -Iq . "$f" 2>/dev/null && checked+=("$f")   # text files only
done

status=0
check () {        # [--case] WHAT REGEX [ALLOW]: EREs, case-insensitive
  local hits icase=-i
  [ "$1" != --case ] || { icase=; shift; }
  hits=$(grep -n $icase -E -H "$2" "${checked[@]}" || true)
  [ -z "${3:-}" ] || hits=$(grep -v -i -E "$3" <<<"$hits" || true)
  [ -z "$hits" ] && return 0
  echo "== $1:"
  cut -c1-200 <<<"$hits"
  status=1
}
check "an issue number" '\bissues? #?[0-9]+\b'
check "an issue reference" '(\(|\b(see|fixes|fixed in|closes|of|in) )#[0-9]+\b'
# MQTT has sessions of its own.
check "a work session" '\bsessions?\b' \
  'mqtt|mosquitto|subscriber|clean.session|persistent session|broker'
check "a machine of the project" \
  '\b(the|that|this) (gpu|cpu|h100|h200|development) machine\b'
check "a dated run" '\b20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])\b'
check "a paper without its title" \
  "\\bseed papers?\\b|\\bthe seeds?('s|'|’s|’)"
check --case "a file not in the tree" '\bDESIGN\.md\b'
[ $status -eq 0 ] && echo "no text speaks of how the tree was built (${#checked[@]} files)"
exit $status
