#!/bin/sh
# umbel worker wrapper. Runs in the worker's tmux pane as
#   sh launch.sh [--retire-after <seconds>] [--owned] <tmux-socket> <env-buffer> <events-dir> <cli> [args...]
# The worker's environment arrives in a tmux buffer (loaded from umbel's stdin), never on a command
# line: read it, delete it, drop everything the pane inherited, run the CLI, and record how it ended
# in <events-dir>/exit.json ({"exitCode":N} or {"exitCode":N,"signal":"KILL"}), written atomically.
# --retire-after: a spare of the warm pool (core/pool.ts), retired below once idle that long.
# --owned: the worker is one process's (an anonymous umbel -p's, core/owner.ts), watched below.
retire_after=
owned=
if [ "$1" = --retire-after ]; then
  retire_after=$2
  shift 2
fi
if [ "$1" = --owned ]; then
  owned=1
  shift
fi
sock=$1
buf=$2
events=$3
shift 3

# The exit record is umbel's file, 0600 like every file under the state root. The umask is set only
# around it: the CLI keeps the caller's umask for the files it makes in the project.
record_exit() {
  (umask 077 && printf '%s\n' "$1" > "$events/exit.json.tmp") && mv "$events/exit.json.tmp" "$events/exit.json"
}

# The tmux server this pane runs in and the pane's own session, from what tmux gives every pane
# (TMUX=<socket path>,<server pid>,<session id>): the socket's folder is exact whatever TMUX_TMPDIR
# umbel had (this wrapper clears its env), and the session is its id, so the wrapper only ever ends
# its own session, whatever its name now and whichever state root shares the socket.
session_dir=${events%/*}
server=${TMUX%%,*}
own_session=\$${TMUX##*,}
[ -n "$TMUX" ] || own_session="=${session_dir##*/}"
tmux_bin=$(command -v tmux) || tmux_bin=tmux
own_tmux() {
  if [ -n "$server" ]; then
    "$tmux_bin" -S "$server" -f /dev/null "$@"
  else
    "$tmux_bin" -L "$sock" -f /dev/null "$@"
  fi
}
payload=$(own_tmux show-buffer -b "$buf" 2>/dev/null)
loaded=$?
own_tmux delete-buffer -b "$buf" 2>/dev/null
if [ "$loaded" -ne 0 ]; then
  printf 'umbel: the worker environment buffer %s was not found\n' "$buf" >&2
  record_exit '{"exitCode":1,"error":"env-buffer-missing"}'
  exit 1
fi

# tmux sets TERM for the pane; it is the one inherited value that describes the pane itself.
pane_term=${TERM:-tmux-256color}
for name in $(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p'); do
  unset "$name" 2>/dev/null
done
export TERM="$pane_term"
# The wrapper's own tools, whatever PATH the worker gets.
PATH=/usr/local/bin:/usr/bin:/bin

# The warm pool's idle TTL and an owned worker's owner, kept by the wrapper so that no umbel process
# stays alive for them, looked at once a second:
# - a spare still unclaimed (<session>/pool.spare) whose TTL is over takes the claim lock umbel's own
#   claim and pool drain take (written whole, then linked: a holder record umbel reads as alive while
#   this shell runs), and, still unclaimed, loses its marker, its tmux session (the CLI with it) and
#   its directory;
# - a worker with an owner (<session>/owner: "<pid> <start>", written by umbel before the marker goes
#   when an anonymous -p claims a spare) whose owner is gone (its pid ends, or names another process:
#   Linux's /proc start time; elsewhere the pid alone) loses its tmux session: nobody would use or
#   remove it any more (ls shows it orphaned, prune removes the rest);
# - neither, and its meta says claimed with no takeover in flight: spawn NAME took it for good, the
#   loop ends (a spare still starting has no marker yet: umbel writes it once the spare is ready).
# A worker killed meanwhile takes the loop with it (the pane's hang-up).
owner_alive() {
  read -r owner_pid owner_start < "$session_dir/owner" || return 0
  case $owner_pid in '' | *[!0-9]*) return 0 ;; esac
  kill -0 "$owner_pid" 2>/dev/null || return 1
  [ -r "/proc/$owner_pid/stat" ] || return 0
  read -r owner_stat < "/proc/$owner_pid/stat" || return 1
  # Field 22, the start time: counted from the end of the command name, which may hold spaces.
  set -- ${owner_stat##*") "}
  [ "$#" -lt 20 ] || [ "${20}" = "$owner_start" ]
}

retire() {
  # Written whole, then linked to its name (ln fails if it exists): never an empty lock (a full disk
  # left one between create and write, which wedged the claim for good; lock-file.ts).
  lock_tmp="$session_dir/claim.lock.$$.tmp"
  printf '{"pid":%s,"start":null}' "$$" > "$lock_tmp" 2>/dev/null && ln "$lock_tmp" "$session_dir/claim.lock" 2>/dev/null
  taken=$?
  rm -f "$lock_tmp"
  [ "$taken" -eq 0 ] || return 0
  if [ ! -f "$session_dir/pool.spare" ]; then
    rm -f "$session_dir/claim.lock"
    return 0
  fi
  rm -f "$session_dir/pool.spare"
  # The kill hangs up this pane's processes, this one included: deaf to it, it then removes the dir.
  trap '' HUP
  if own_tmux kill-session -t "$own_session" 2>/dev/null; then
    rm -rf "$session_dir"
  else
    : > "$session_dir/pool.spare"
    rm -f "$session_dir/claim.lock"
    trap - HUP
    return 0
  fi
  exit 0
}
if [ -n "$retire_after$owned" ]; then
  (
    waited=0
    while sleep 1; do
      waited=$((waited + 1))
      if [ -f "$session_dir/pool.spare" ]; then
        [ "$waited" -lt "${retire_after:-0}" ] || retire
      elif [ -f "$session_dir/owner" ]; then
        owner_alive && continue
        trap '' HUP
        own_tmux kill-session -t "$own_session" 2>/dev/null
        exit 0
      elif grep -q '"state": "claimed"' "$session_dir/meta.json" 2>/dev/null &&
        ! grep -q '"takeover"' "$session_dir/meta.json" 2>/dev/null; then
        exit 0
      fi
    done
  ) </dev/null >/dev/null 2>&1 &
fi

# A caught signal is reset to its default in the child, so the CLI still gets INT/QUIT; the wrapper
# survives them to record the status. HUP is NOT caught: when tmux closes the pane, the kernel
# signals only this session leader, and its exit is what passes SIGHUP on to the CLI (a caught HUP
# left the CLI running with no terminal).
trap ':' INT QUIT
# The worker's env is evaluated in the CLI's own subshell (then exec'd: the same process tree as
# before), never in this shell: a worker variable named events, status or IFS must not move or forge
# the exit record.
(eval "$payload" && exec "$@")
status=$?
payload=

if [ "$status" -gt 128 ] && [ "$status" -lt 193 ]; then
  # sh reports death by signal N as 128+N; a CLI that exits with such a code by itself reads the same.
  sig=$(kill -l $((status - 128)) 2>/dev/null)
  record="{\"exitCode\":$status,\"signal\":\"$sig\"}"
else
  record="{\"exitCode\":$status}"
fi
record_exit "$record"
# spawn --notify: the CLI is gone, so this worker's last turn ended dead; the caller's command runs
# detached (as hooks/hook.sh runs it), with the exit record as the payload.
session=${events%/*}
if [ -f "$session/notify.cmd" ]; then
  # launch.sh leads the pane's session: its exit hangs up the pane's processes. Ignored before the
  # fork, so the child is never hung up before it could ignore it itself.
  trap '' HUP
  (
    umask 077
    out="$session/notify.$$.json"
    printf '{"name":"%s","reason":"dead","exitCode":125,"event":"exit","payload":%s}\n' "${session##*/}" "$record" > "$out"
    UMBEL_WORKER=${session##*/} UMBEL_OUTCOME=dead sh -c "$(cat "$session/notify.cmd")" < "$out" >> "$session/notify.log" 2>&1
    rm -f "$out"
  ) </dev/null >/dev/null 2>&1 &
fi
exit "$status"
