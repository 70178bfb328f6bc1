#!/bin/sh
# umbel hook: append the raw payload (stdin) as ONE line to the worker's events log, print nothing,
# exit 0. JSON has no raw newlines inside strings, so deleting line breaks keeps it valid. The line
# goes through a temp file and a single append so that a reader never sees half a line and parallel
# hooks do not interleave (one write for payloads under cat's 128 KiB buffer).
# One exception to "print nothing": while <events>/halt.json exists (umbel -p --max-turns armed it),
# a claude PostToolUse(Failure) or gemini AfterTool hook prints it, so the CLI stops after the tool
# it just ran, as claude -p does. (codex reads the same output as "replace the tool's output" and
# goes on, so umbel never arms it for codex.)
log=$1
tmp="$log.$$.tmp"
halt="${log%/*}/halt.json"
{ tr -d '\r\n'; printf '\n'; } > "$tmp" 2>/dev/null && cat "$tmp" >> "$log" 2>/dev/null
if [ -f "$halt" ] && grep -qE '"hook_event_name":"(PostToolUse|AfterTool)' "$tmp" 2>/dev/null; then
  cat "$halt" 2>/dev/null
fi
rm -f "$tmp"
exit 0
