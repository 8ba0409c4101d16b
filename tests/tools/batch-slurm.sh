#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# clvision-batch --slurm on a real single-node Slurm cluster started here
# (munged, slurmctld, slurmd on 127.0.0.1; stopped at the end, also on
# failure): 20 inputs (12 short videos to JSON Lines, 8 GeoTIFFs through
# the SAR chain) as an array of 4 tasks.  One task is cancelled (scancel)
# once it has finished a file; --status reports it, --resume submits only
# the files that were not finished and leaves the finished ones untouched;
# in the end every output equals a local run's byte for byte, and the
# summaries agree but for their timing fields.
#
#   tests/tools/batch-slurm.sh BUILD/tools/batch/clvision-batch
set -euo pipefail
batch=$(realpath "${1:?usage: batch-slurm.sh CLVISION-BATCH}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d /tmp/clv-batch-slurm.XXXXXX)
source "$here/slurm-cluster.sh"
cleanup () {
  slurm_stop
  rm -rf "$tmp"
}
trap cleanup EXIT
fail () {
  echo "FAIL: $*" >&2
  for f in "$tmp"/slurm/.clvision-batch/slurm/submission-*/task-*.out; do
    [ -f "$f" ] && { echo "== $f" >&2; tail -5 "$f" >&2; }
  done
  exit 1
}

# The outputs under final names (partial ones are in .clvision-batch/).
outputs () {
  (cd "$1" && find . -path ./.clvision-batch -prune -o \( -name '*.jsonl' -o -name '*.tif' \) -print | sort)
}

"$here/batch-archive.sh" "$tmp/archive"
slurm_start "$tmp/cluster" 4 || fail "no Slurm cluster"

# The reference: a local run of the same archive.
"$batch" -P "$tmp/archive/pipelines.ini" -o "$tmp/local" --progress none \
  "$tmp/archive/videos" "$tmp/archive/scenes" || fail "the local run failed"
[ "$(outputs "$tmp/local" | wc -l)" -eq 20 ] \
  || fail "the local run did not write 20 outputs"

# "TASK OUTPUT" for each file of submission K, from the plan.
shares () {
  python3 - "$tmp/slurm/.clvision-batch/slurm/plan.json" "$1" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
for t, share in enumerate(plan["submissions"][int(sys.argv[2])]["tasks"]):
    for e in share:
        print(t, plan["entries"][e]["output"])
PY
}
share () { awk -v t="$2" '$1 == t { print $2 }' "$tmp/shares-$1"; }
finished_of () {
  local n=0 f
  for f in $(share 0 "$1"); do [ -f "$tmp/slurm/$f" ] && n=$((n + 1)); done
  echo $n
}
wait_idle () {
  for _ in $(seq 1200); do
    [ -z "$(squeue -h -o %i)" ] && return 0
    sleep 0.1
  done
  fail "the jobs did not end: $(squeue)"
}

"$batch" --slurm --max-tasks 4 -P "$tmp/archive/pipelines.ini" \
  -o "$tmp/slurm" "$tmp/archive/videos" "$tmp/archive/scenes" > "$tmp/submit" \
  || fail "--slurm did not submit"
job=$(sed -n 's/^Submitted job array \([0-9]*\):.*/\1/p' "$tmp/submit")
[ -n "$job" ] || fail "no job id in: $(cat "$tmp/submit")"
grep -q "20 files in 4 tasks" "$tmp/submit" || fail "not 20 files in 4 tasks: $(cat "$tmp/submit")"
shares 0 > "$tmp/shares-0"

# Cancel a task as soon as it has finished a file and not all of its own.
victim=
for _ in $(seq 1500); do
  [ -n "$(squeue -h -o %i)" ] || break
  for t in 0 1 2 3; do
    n=$(finished_of $t)
    if [ "$n" -ge 1 ] && [ "$n" -lt "$(share 0 $t | wc -l)" ]; then
      scancel "${job}_$t"
      victim=$t
      break 2
    fi
  done
  sleep 0.1
done
[ -n "$victim" ] || fail "no task was caught between two files"
wait_idle

unfinished=$(for f in $(share 0 "$victim"); do [ -f "$tmp/slurm/$f" ] || echo "$f"; done)
[ -n "$unfinished" ] || fail "task $victim finished everything despite scancel"
# Whatever exists under a final name is whole: equal to the local output.
for f in $(outputs "$tmp/slurm"); do
  cmp -s "$tmp/slurm/$f" "$tmp/local/$f" || fail "$f differs after scancel"
done
"$batch" --slurm --status -o "$tmp/slurm" > "$tmp/status" && fail "--status said all done"
grep -Eq "task $victim +CANCELLED" "$tmp/status" \
  || fail "--status does not report task $victim cancelled: $(cat "$tmp/status")"
todo=$(echo "$unfinished" | wc -l)
grep -q "$todo to do" "$tmp/status" || fail "--status does not count $todo to do: $(cat "$tmp/status")"

# Resume: only the unfinished files go; the finished ones stay as they are.
stat -c '%n %i %Y' $(outputs "$tmp/slurm" | sed "s|^\.|$tmp/slurm|") > "$tmp/before"
"$batch" --slurm --resume -o "$tmp/slurm" > "$tmp/resume" || fail "--resume failed"
grep -q "Submitted job array .*: $todo files in" "$tmp/resume" \
  || fail "--resume did not submit exactly the $todo unfinished files: $(cat "$tmp/resume")"
shares 1 > "$tmp/shares-1"
[ "$(awk '{ print $2 }' "$tmp/shares-1" | sort)" = "$(echo "$unfinished" | sort)" ] \
  || fail "the resubmitted files are not the unfinished ones"
wait_idle
stat -c '%n %i %Y' $(cut -d' ' -f1 "$tmp/before") | cmp -s - "$tmp/before" \
  || fail "--resume rewrote finished outputs"
"$batch" --slurm --status -o "$tmp/slurm" > "$tmp/status" \
  || fail "--status after --resume: $(cat "$tmp/status")"
grep -q "^20 files: 20 done" "$tmp/status" || fail "not all done: $(cat "$tmp/status")"
status=0
"$batch" --slurm -P "$tmp/archive/pipelines.ini" -o "$tmp/slurm" "$tmp/archive/scenes" \
  2> "$tmp/again" || status=$?
[ $status -eq 2 ] && grep -q "holds a Slurm batch already" "$tmp/again" \
  || fail "a second --slurm into the same folder was not refused: $(cat "$tmp/again")"

# Every output equals the local run's, and so do the summaries (without
# their timing fields: seconds and device).
for f in $(outputs "$tmp/local"); do
  cmp "$tmp/slurm/$f" "$tmp/local/$f" || fail "$f differs from the local run"
done
python3 - "$tmp/local/clvision-batch.json" "$tmp/slurm/clvision-batch.json" <<'PY' || fail "the summaries differ"
import json, sys
def strip(path):
    s = json.load(open(path))
    for f in s["files"]:
        f.pop("seconds"); f.pop("device")
    return s["pipelines"], s["totals"], s["files"]
a, b = strip(sys.argv[1]), strip(sys.argv[2])
if a != b:
    print(json.dumps(a, indent=1)[:2000], json.dumps(b, indent=1)[:2000], sep="\n")
    sys.exit(1)
assert a[1]["done"] == 20 and a[1]["faces"] > 0 and a[1]["pixels"] > 0, a[1]
PY
echo PASS
