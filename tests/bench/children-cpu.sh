# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the benchmark scripts.  children_cpu VAR sets VAR to the CPU
# seconds (user + system) of every child this shell has waited for so far,
# from bash's `times`, which must run in this shell: in a subshell it counts
# only that subshell's children.
children_cpu () {
  local f=${TMPDIR:-/tmp}/children-cpu.$$
  times > "$f"
  printf -v "$1" '%s' "$(awk 'NR == 2 { for (i = 1; i <= 2; i++) {
    split($i, t, /[ms]/); s += t[1] * 60 + t[2] } printf "%.2f", s }' "$f")"
  rm -f "$f"
}
