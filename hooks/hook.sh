#!/bin/sh
# umbel hook: append the raw payload (stdin) as ONE line to the worker's events log, print nothing,
# exit 0. JSON has no raw newlines inside strings, so deleting line breaks keeps it valid. The line
# goes through a temp file and a single append so that a reader never sees half a line and parallel
# hooks do not interleave (one write for payloads under cat's 128 KiB buffer).
# Exceptions to "print nothing":
# - while <events>/halt-<Event>.json exists (umbel -p --max-turns armed it), the hook for <Event>
#   prints it: claude's PostToolUse and gemini's AfterTool answer {"continue":false} (stop after this
#   tool, as claude -p does), codex's PreToolUse denies the call;
# - a rule of <session>/policy.tsv (spawn --allow/--deny, core/policy.ts) that matches this event's
#   tool call: the CLI's answer is printed, and the logged line carries "umbel_policy" first (in the
#   same line, so no reader ever sees the request without its decision). A non-interactive worker's
#   (umbel -p) last rule has tool `*`: it denies whatever still asks a person, the call's tool name
#   put into its answer where @TOOL@ stands.
# After the append, <session>/notify.tsv (spawn --notify) may start the caller's command in the
# background with the turn's outcome on stdin, and a queued prompt (send --queue) may start umbel to
# send it; neither delays the CLI.
# umask 077: the log quotes whatever the model said (secrets included), so it and its temp file are
# 0600 whatever umask the CLI runs with (022 made it 0644).
umask 077
log=$1
events=${log%/*}
session=${events%/*}
tmp="$log.$$.tmp"
{ tr -d '\r\n'; printf '\n'; } > "$tmp" 2>/dev/null
# Inside a JSON string a quote is escaped, so only the payload's own key matches. Read only where
# needed before the append (a policy), else after it: a waiter wakes on the append, 3 ms sooner
# (measured: hook start → line 5.6 → 2.2 ms; the sed is a process start).
read_event() { event=$(sed -n 's/.*"hook_event_name":"\([A-Za-z]*\)".*/\1/p' "$tmp" 2>/dev/null); }
event=
answer=

# The tool call's main argument (command, file_path, …): leftmost key of the first kind present,
# JSON escapes undone. esc=1 when an escape other than \" \\ \/ remains: no allow rule then matches.
read_call() {
  tool=$(sed -n 's/.*"tool_name":"\([^"\\]*\)".*/\1/p' "$tmp")
  eval "$(awk '
    function rep(s, from, to,   out, i) {
      out = ""
      while ((i = index(s, from)) > 0) { out = out substr(s, 1, i - 1) to; s = substr(s, i + length(from)) }
      return out s
    }
    {
      arg = ""; found = 0
      n = split("command file_path absolute_path path url pattern", keys, " ")
      for (k = 1; k <= n && !found; k++) {
        if (match($0, "\"" keys[k] "\":\"([^\"\\\\]|\\\\.)*\"")) {
          arg = substr($0, RSTART + length(keys[k]) + 4, RLENGTH - length(keys[k]) - 5); found = 1
        }
      }
      arg = rep(rep(rep(arg, "\\\\", "\001"), "\\\"", "\""), "\\/", "/")
      esc = index(arg, "\\") > 0
      arg = rep(rep(arg, "\001", "\\"), "\047", "\047\\\047\047")
      printf "arg=\047%s\047; esc=%d; found=%d\n", arg, esc, found
    }' "$tmp")"
}

# 0 when the rule (kind, glob, verdict) matches the call read by read_call.
matches() {
  case $1 in
    any) return 0 ;;
    arg)
      [ "$found" = 1 ] && [ "$esc" = 0 ] || return 1
      case $arg in $2) return 0 ;; esac
      return 1 ;;
    cmd)
      [ "$found" = 1 ] || return 1
      if [ "$3" = allow ]; then
        # An allowed command is one simple command: never a list, pipe, substitution, redirection,
        # escape or second line.
        [ "$esc" = 0 ] || return 1
        case $arg in *[\;\&\|\<\>\`\$\(\)\{\}\\]*) return 1 ;; esac
        case $arg in $2) return 0 ;; esac
        return 1
      fi
      # A denied command is denied wherever it appears in a list, pipe or substitution.
      printf '%s\n' "$arg" | sed 's/\\n/;/g' | tr ';&|(){}`' '\n\n\n\n\n\n\n\n' | {
        while IFS= read -r part; do
          part=$(printf '%s' "$part" | sed 's/^[[:space:]$]*//')
          case $part in $2) exit 0 ;; esac
        done
        exit 1
      }
      return $? ;;
  esac
  return 1
}

# A tab, without a subshell (this runs for every event of every worker).
tab='	'
if [ -f "$session/policy.tsv" ] && read_event && [ -n "$event" ] && grep -q "^[a-z]*$tab$event$tab" "$session/policy.tsv"; then
  read_call
  while IFS="$tab" read -r verdict rule_event rule_tool kind glob marker reply; do
    [ "$rule_event" = "$event" ] && { [ "$rule_tool" = "$tool" ] || [ "$rule_tool" = "*" ]; } || continue
    if matches "$kind" "$glob" "$verdict"; then
      line=$(cat "$tmp")
      if [ "$line" = "{}" ]; then rest="}"; else rest=",${line#\{}"; fi
      printf '{"umbel_policy":%s%s\n' "$marker" "$rest" > "$tmp"
      answer=$reply
      # The non-interactive denial names the tool (read_call's tool holds no quote or backslash).
      case $answer in *@TOOL@*) answer="${answer%%@TOOL@*}$tool${answer#*@TOOL@}" ;; esac
      break
    fi
  done < "$session/policy.tsv"
fi

cat "$tmp" >> "$log" 2>/dev/null
[ -n "$event" ] || read_event
halt="$events/halt-$event.json"
if [ -n "$event" ] && [ -f "$halt" ]; then
  cat "$halt" 2>/dev/null
elif [ -n "$answer" ]; then
  printf '%s\n' "$answer"
fi

# notify.tsv (core/notify.ts): event, outcome, exit code, a pattern the line must hold, one it must
# not (- for none). The command runs detached, in the worker's env plus UMBEL_WORKER and UMBEL_OUTCOME.
if [ -n "$event" ] && [ -f "$session/notify.tsv" ] && [ -f "$session/notify.cmd" ]; then
  while IFS="$tab" read -r on outcome code must never; do
    [ "$on" = "$event" ] || continue
    [ "$must" = - ] || grep -E -q -e "$must" "$tmp" || continue
    [ "$never" = - ] || ! grep -E -q -e "$never" "$tmp" || continue
    out="$session/notify.$$.json"
    printf '{"name":"%s","reason":"%s","exitCode":%s,"event":"%s","payload":%s}\n' \
      "${session##*/}" "$outcome" "$code" "$event" "$(cat "$tmp")" > "$out"
    # Deaf to the CLI's hang-up (a worker killed right after its turn still notifies), from the fork on.
    trap '' HUP
    (UMBEL_WORKER=${session##*/} UMBEL_OUTCOME=$outcome sh -c "$(cat "$session/notify.cmd")" \
      < "$out" >> "$session/notify.log" 2>&1; rm -f "$out") </dev/null >/dev/null 2>&1 &
    break
  done < "$session/notify.tsv"
fi
# queue.json (send --queue): a prompt waits for this worker. At an event that ends a turn (drain.tsv,
# the same columns as notify.tsv) drain.cmd, the queuing umbel's own `status NAME`, runs detached and
# sends it once the worker is idle, under the worker's send lock.
if [ -n "$event" ] && [ -f "$session/drain.cmd" ] && [ -f "$session/drain.tsv" ] &&
  grep -q '"state": "queued"' "$session/queue.json" 2>/dev/null; then
  while IFS="$tab" read -r on outcome code must never; do
    [ "$on" = "$event" ] || continue
    [ "$must" = - ] || grep -E -q -e "$must" "$tmp" || continue
    [ "$never" = - ] || ! grep -E -q -e "$never" "$tmp" || continue
    trap '' HUP
    (sh -c "$(cat "$session/drain.cmd")" >> "$session/drain.log" 2>&1) </dev/null >/dev/null 2>&1 &
    break
  done < "$session/drain.tsv"
fi
rm -f "$tmp"
exit 0
