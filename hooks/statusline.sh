#!/bin/sh
# umbel statusline: claude runs its statusLine command with a JSON on stdin after each update (cost,
# context window, model and, for claude.ai subscribers, the usage windows: rate_limits). This keeps
# the last one, whole, at $1 (the worker's events/statusline.json) for `status` and -p's cost, and
# prints nothing (the statusline stays blank). Temp file + rename: a reader sees the old JSON or the
# new, never half. umask 077: every file under the state root is 0600.
# set -C: the temp file is made new (O_EXCL), so a link planted at its name is never followed; one
# left there (a killed run of the same pid, a planted link) is removed first; one planted after that
# fails the open, and this update is dropped (the next one comes).
# Two programs in the common case (cat, mv), since this runs at a turn's end, on the path to `wait`.
umask 077
set -C
out=$1
tmp="$out.$$.tmp"
if [ -e "$tmp" ] || [ -L "$tmp" ]; then rm -f "$tmp"; fi
{ cat > "$tmp" && mv -f "$tmp" "$out"; } 2>/dev/null || rm -f "$tmp" 2>/dev/null
exit 0
