#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fails when a tracked source, kernel, script, test or meson file lacks the
# project's SPDX line, or when COPYING is missing.
#   tests/tree/check-licence.sh [SOURCE_ROOT]
set -euo pipefail
cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}"
tag='SPDX-License-Identifier: LGPL-2.1-or-later'
status=0
[ -s COPYING ] || { echo "COPYING is missing"; status=1; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files)
else
  mapfile -t files < <(find . -path ./.git -prune -o -type f -print | sed 's|^\./||')
fi
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  case "$f" in
    docs/*|*/corpus/*|build/*|.device/*) continue ;;
    *.c|*.h|*.cl|*.cpp|*.py|*.sh|*.build|*.supp|meson_options.txt) ;;
    *) [ "$(head -c 2 "$f")" = '#!' ] || continue ;;
  esac
  head -n 3 "$f" | grep -q "$tag" || { echo "no SPDX line: $f"; status=1; }
done
[ $status -eq 0 ] && echo "every source file carries the SPDX line"
exit $status
