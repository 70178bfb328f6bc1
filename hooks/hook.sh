#!/bin/sh
# umbel hook: append the raw payload (stdin) as ONE line to the worker's events log, print nothing,
# exit 0. JSON has no raw newlines inside strings, so deleting line breaks keeps it valid. The line
# goes through a temp file and a single append so that a reader never sees half a line and parallel
# hooks do not interleave (one write for payloads under cat's 128 KiB buffer).
# One exception to "print nothing": while <events>/halt-<Event>.json exists (umbel -p --max-turns
# armed it), the hook for <Event> prints it: claude's PostToolUse and gemini's AfterTool answer
# {"continue":false} (stop after this tool, as claude -p does), codex's PreToolUse denies the call.
# umask 077: the log quotes whatever the model said (secrets included), so it and its temp file are
# 0600 whatever umask the CLI runs with (022 made it 0644). hook.sh writes nothing else.
umask 077
log=$1
tmp="$log.$$.tmp"
{ tr -d '\r\n'; printf '\n'; } > "$tmp" 2>/dev/null && cat "$tmp" >> "$log" 2>/dev/null
# Inside a JSON string a quote is escaped, so only the payload's own key matches.
event=$(sed -n 's/.*"hook_event_name":"\([A-Za-z]*\)".*/\1/p' "$tmp" 2>/dev/null)
halt="${log%/*}/halt-$event.json"
if [ -n "$event" ] && [ -f "$halt" ]; then
  cat "$halt" 2>/dev/null
fi
rm -f "$tmp"
exit 0
