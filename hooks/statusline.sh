#!/bin/sh
# umbel statusline: claude runs its statusLine command with a JSON on stdin after each update (cost,
# context window, model and, for claude.ai subscribers, the usage windows: rate_limits). This keeps
# the last one, whole, at $1 (the worker's events/statusline.json) for `status` and -p's cost, and
# prints nothing (the statusline stays blank). Temp file + rename: a reader sees the old JSON or the
# new, never half. umask 077: every file under the state root is 0600.
# set -C after removing what is there: a link planted at the temp name is never followed.
umask 077
set -C
out=$1
tmp="$out.$$.tmp"
rm -f "$tmp"
cat > "$tmp" 2>/dev/null && mv -f "$tmp" "$out" 2>/dev/null
rm -f "$tmp" 2>/dev/null
exit 0
