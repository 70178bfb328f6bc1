#!/bin/sh
# umbel hook: `sh hook.sh <events log> <incarnation> <Event>`. Append the raw payload (stdin) as ONE
# line to the worker's events log, print nothing, exit 0. <incarnation> is the worker's (below; empty:
# none). <Event> is the hook event the provider registered this command for (claude --settings,
# codex's CODEX_HOME, gemini's settings): the halt files and notify.tsv go by it, never by a name read
# from the payload, where a model's MCP call arguments sit as raw JSON. Without it (a bare name only)
# nothing is printed or started by event. JSON has no raw newlines inside strings, so deleting line
# breaks keeps it valid. The line
# goes through a temp file and a single append so that a reader never sees half a line and parallel
# hooks do not interleave (one write for payloads under cat's 128 KiB buffer).
# Exceptions to "print nothing":
# - while <events>/halt-<Event>.json exists (umbel -p --max-turns armed it), the hook for <Event>
#   prints it: claude's PostToolUse and gemini's AfterTool answer {"continue":false} (stop after this
#   tool, as claude -p does), codex's PreToolUse denies the call;
# - a tool call that umbel's policy decides (spawn --allow/--deny, and a non-interactive worker's
#   denial of whatever would ask a person; below): the CLI's answer is printed, and the logged line
#   carries "umbel_policy" first (in the same line, so no reader ever sees the request without its
#   decision).
# After the append, <session>/notify.tsv (spawn --notify) may start the caller's command in the
# background with the turn's outcome on stdin, and a queued prompt (send --queue) may start umbel to
# send it; neither delays the CLI.
# umask 077: the log quotes whatever the model said (secrets included), so it and its temp file are
# 0600 whatever umask the CLI runs with (022 made it 0644).
# set -C: every file this script makes is new (O_EXCL), so a link planted at its name is never
# followed; umbel's own logs are appended to only when they are no link (append_log, below).
umask 077
set -C
log=$1
event=${3-}
case $event in *[!A-Za-z]*) event= ;; esac
events=${log%/*}
session=${events%/*}
# $2: the worker's incarnation (operations/spawn/spawn.ts), also in <session>/incarnation while that worker
# has the folder. A hook of a worker killed since (kill --purge, then spawn NAME: the same paths) runs
# nothing and appends nothing. A hook command without one is an earlier umbel's worker's.
incarnation=${2-}
hook_cwd=$PWD
if [ -n "$incarnation" ]; then
  now=
  { read -r now < "$session/incarnation"; } 2>/dev/null
  if [ "$now" != "$incarnation" ]; then
    cat >/dev/null
    exit 0
  fi
fi
tmp="$log.$$.tmp"
# A temp file left by a killed hook of the same pid (or a planted link) is removed, then made anew.
{ tr -d '\r\n'; printf '\n'; } > "$tmp" 2>/dev/null || { rm -f "$tmp"; { tr -d '\r\n'; printf '\n'; } > "$tmp" 2>/dev/null; }

# Appends stdin to the log $1, bounded (core/common/log-bounds.ts): one run adds at most 65536 bytes (then a
# line saying it was cut; the rest is read and dropped, so the writer never dies of SIGPIPE), and a
# log past 1048576 bytes is first moved to $1.1, replacing the older one. A link where the log goes
# is refused: nothing is written through it. The same function is in hooks/launch.sh.
append_log() {
  if [ -L "$1" ] || [ -L "${1%/*}" ]; then
    cat >/dev/null
    return 0
  fi
  cut_tmp="$1.$$.cut"
  rm -f "$cut_tmp"
  head -c 65537 > "$cut_tmp" 2>/dev/null || { cat >/dev/null; return 0; }
  cat >/dev/null
  if [ -f "$1" ] && [ "$(wc -c < "$1")" -gt 1048576 ]; then mv -f "$1" "$1.1"; fi
  if [ "$(wc -c < "$cut_tmp")" -gt 65536 ]; then
    { head -c 65536 "$cut_tmp"; printf '\n[umbel: this output was cut at 65536 bytes]\n'; } >> "$1"
  else
    cat "$cut_tmp" >> "$1"
  fi
  rm -f "$cut_tmp"
}
answer=

# A tab and a newline, without a subshell (this runs for every event of every worker).
tab='	'
nl='
'
# policy.tsv (core/fleet/policy/compile.ts, spawn --allow/--deny): one line per hook event a rule answers — the
# event, a regex of the rules' tool names as JSON strings, what to print when umbel cannot decide
# (- for nothing: a person is asked; a deny rule's event has the CLI's deny answer), and the marker
# for that line. A payload that holds such an event's name and one of those tools anywhere
# (over-inclusive, and never missing: the CLI's own top-level "hook_event_name":"<Event>" and
# "tool_name":"<Tool>" are in it) is handed to this very umbel (policy.cmd: `umbel __policy
# SESSION`), which parses it, decides from the CLI's own fields and prints two lines: the marker
# and the CLI's answer (nothing: no rule decides). A failure to run or a garbled answer is the
# fallback's (fail closed). A -p worker (spawn --non-interactive) has claude's PermissionRequest line
# even with no rules: one grep at every other event, umbel only at a PermissionRequest. Measured: hook
# start → answer, docs/performance.md.
if [ -f "$session/policy.tsv" ]; then
  while IFS="$tab" read -r pol_event pol_tools fail_answer fail_marker; do
    grep -q -F "\"$pol_event\"" "$tmp" 2>/dev/null || continue
    grep -q -E -e "$pol_tools" "$tmp" 2>/dev/null || continue
    if [ -f "$session/policy.cmd" ]; then
      # Its stderr goes to the bounded policy.log, through a file made here (builtins only: this is
      # a hook's hot path; removed with $tmp at the end).
      : > "$tmp.err" 2>/dev/null || { rm -f "$tmp.err"; : > "$tmp.err"; }
      decided=$(sh -c "$(cat "$session/policy.cmd")" < "$tmp" 2>>"$tmp.err")
      status=$?
      [ -s "$tmp.err" ] && append_log "$session/policy.log" < "$tmp.err"
    else
      decided= status=127
    fi
    case $decided in *"$nl"*) ;; '') ;; *) status=70 ;; esac
    if [ "$status" != 0 ]; then
      echo "umbel policy: exit $status at $pol_event" | append_log "$session/policy.log"
      [ "$fail_answer" = - ] || { marker=$fail_marker answer=$fail_answer; }
    elif [ -n "$decided" ]; then
      marker=${decided%%"$nl"*} answer=${decided#*"$nl"}
    fi
    break
  done < "$session/policy.tsv"
  if [ -n "$answer" ]; then
    line=$(cat "$tmp")
    if [ "$line" = "{}" ]; then rest="}"; else rest=",${line#\{}"; fi
    printf '{"umbel_policy":%s%s\n' "$marker" "$rest" >| "$tmp"
  fi
fi

# The events log is umbel's file: a link there (or an events folder that is one) is never appended to.
# With an incarnation, the append is made from inside the events folder, the incarnation read there
# again (its ../ is that folder's own session folder, whatever it is named by then): the folder
# checked is the one written to, even if kill --purge moves it away and a new worker takes its name
# in between.
if [ -z "$incarnation" ]; then
  [ -L "$log" ] || [ -L "$events" ] || cat "$tmp" >> "$log" 2>/dev/null
elif [ ! -L "$log" ] && [ ! -L "$events" ] && cd "$events" 2>/dev/null; then
  now=
  { read -r now < ../incarnation; } 2>/dev/null
  [ "$now" != "$incarnation" ] || [ -L "${log##*/}" ] || cat "$tmp" >> "${log##*/}" 2>/dev/null
  # The notify and drain commands below run where the CLI runs.
  [ -z "$hook_cwd" ] || cd "$hook_cwd" 2>/dev/null
fi
halt="$events/halt-$event.json"
if [ -n "$event" ] && [ -f "$halt" ]; then
  cat "$halt" 2>/dev/null
elif [ -n "$answer" ]; then
  printf '%s\n' "$answer"
fi

# notify.tsv (core/fleet/notify.ts): event, outcome, exit code, a pattern the line must hold, one it must
# not (- for none): anchored at the line's start (the marker above, or the CLI's own top-level
# fields), so text inside a tool call's arguments never matches them. The command runs detached, in the worker's env plus UMBEL_WORKER and UMBEL_OUTCOME.
if [ -n "$event" ] && [ -f "$session/notify.tsv" ] && [ -f "$session/notify.cmd" ]; then
  while IFS="$tab" read -r on outcome code must never; do
    [ "$on" = "$event" ] || continue
    [ "$must" = - ] || grep -E -q -e "$must" "$tmp" || continue
    [ "$never" = - ] || ! grep -E -q -e "$never" "$tmp" || continue
    out="$session/notify.$$.json"
    line=$(cat "$tmp")
    # Made new (set -C); one left by a killed hook of this pid is removed first, only then (no rm on the way).
    printf '{"name":"%s","reason":"%s","exitCode":%s,"event":"%s","payload":%s}\n' \
      "${session##*/}" "$outcome" "$code" "$event" "$line" > "$out" 2>/dev/null ||
      { rm -f "$out"; printf '{"name":"%s","reason":"%s","exitCode":%s,"event":"%s","payload":%s}\n' \
        "${session##*/}" "$outcome" "$code" "$event" "$line" > "$out"; }
    # Deaf to the CLI's hang-up (a worker killed right after its turn still notifies), from the fork on.
    trap '' HUP
    # The command runs under a shell that leads a process group of its own (setsid, where there is
    # one) and names it in notify.<pid>.pgid while it runs; that shell's argv holds the file's path,
    # which kill --purge checks (a reused pid is never killed) before it ends the group.
    pgid="$session/notify.$$.pgid"
    run_setsid=
    command -v setsid >/dev/null 2>&1 && run_setsid=setsid
    (rm -f "$pgid"; UMBEL_WORKER=${session##*/} UMBEL_OUTCOME=$outcome $run_setsid sh -c \
      'set -C; printf "%s\n" "$$" > "$1"; shift; sh -c "$1"' umbel-notify "$pgid" "$(cat "$session/notify.cmd")" \
      < "$out" 2>&1 | append_log "$session/notify.log"; rm -f "$out" "$pgid") </dev/null >/dev/null 2>&1 &
    break
  done < "$session/notify.tsv"
fi
# queue.json (send --queue): a prompt waits for this worker. At an event that ends a turn (drain.tsv,
# the same columns as notify.tsv) drain.cmd, the queuing umbel's own hidden `__drain NAME`, runs detached and
# sends it once the worker is idle, under the worker's send lock.
if [ -n "$event" ] && [ -f "$session/drain.cmd" ] && [ -f "$session/drain.tsv" ] &&
  grep -q '"state": "queued"' "$session/queue.json" 2>/dev/null; then
  while IFS="$tab" read -r on outcome code must never; do
    [ "$on" = "$event" ] || continue
    [ "$must" = - ] || grep -E -q -e "$must" "$tmp" || continue
    [ "$never" = - ] || ! grep -E -q -e "$never" "$tmp" || continue
    trap '' HUP
    (sh -c "$(cat "$session/drain.cmd")" 2>&1 | append_log "$session/drain.log") </dev/null >/dev/null 2>&1 &
    break
  done < "$session/drain.tsv"
fi
rm -f "$tmp" "$tmp.err"
exit 0
