#!/bin/sh
# umbel worker wrapper. Runs in the worker's tmux pane as
#   sh launch.sh [--retire-after <seconds>] [--owned] <tmux-socket> <env-buffer> <events-dir> <cli> [args...]
# The worker's environment arrives in a tmux buffer (loaded from umbel's stdin), never on a command
# line: read it, delete it, drop everything the pane inherited, run the CLI, and record how it ended
# in <events-dir>/exit.json ({"exitCode":N} or {"exitCode":N,"signal":"KILL"}), written atomically.
# --retire-after: a spare of the warm pool (core/pool/pool.ts), retired below once idle that long.
# --owned: the worker is one process's (an anonymous umbel -p's, core/worker/owner.ts), watched below.
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
# set -C (O_EXCL) after removing what is there: a link planted at the temp name is never followed.
record_exit() {
  rm -f "$events/exit.json.tmp"
  (umask 077 && set -C && printf '%s\n' "$1" > "$events/exit.json.tmp") && mv "$events/exit.json.tmp" "$events/exit.json"
}

# Appends stdin to the log $1, bounded (core/common/log-bounds.ts): one run adds at most 65536 bytes (then a
# line saying it was cut; the rest is read and dropped, so the writer never dies of SIGPIPE), and a
# log past 1048576 bytes is first moved to $1.1, replacing the older one. A link where the log goes
# is refused: nothing is written through it. The same function is in hooks/hook.sh.
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
#   claim and pool drain take (as lock-file.ts takes it, below), and, still unclaimed, loses its
#   marker, its tmux session (the CLI with it) and its directory;
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

# The claim lock, taken exactly as adapters/lock-file.ts takes it, so that umbel and this shell agree
# on it: a holder record ({"pid":…,"start":…}: this shell's, which umbel reads as alive while the
# worker runs) written whole to a temp file, then linked to its name (ln fails if it exists): never
# an empty lock (a full disk left one between create and write, which wedged the claim for good). A
# holder that is gone (its pid ended, or names another process) leaves a stale lock: a claimer that
# died holding it kept its spare from ever retiring. A stale lock is removed only under the marker
# lock umbel's takers take for that very file (<lock>.reap-<inode>), and checked again under it to
# be the same file and still stale; a marker left by a reaper that died is taken over the same way,
# one level down, at most 3. A lock with no readable holder is stale once this loop has watched it
# for 5 s (UNREADABLE_LOCK_MS); a marker with none, or a holder in a shape umbel does not write, is
# left to umbel's takers.
pid_runs() {
  kill -0 "$1" 2>/dev/null && return 0
  # Another user's process (EPERM) still runs.
  if [ -d /proc/self ]; then [ -d "/proc/$1" ]; else ps -p "$1" >/dev/null 2>&1; fi
}
# adapters/process-start.ts's token: /proc's field 22 (Linux), else `ps -o lstart=`; empty if unread.
pid_start() {
  if [ -r "/proc/$1/stat" ]; then
    read -r pid_stat < "/proc/$1/stat" || return 0
    set -- ${pid_stat##*") "}
    [ "$#" -lt 20 ] || printf '%s' "${20}"
  else
    pid_stat=$(ps -o lstart= -p "$1" 2>/dev/null) || return 0
    pid_stat=${pid_stat#"${pid_stat%%[! ]*}"}
    printf '%s' "${pid_stat%"${pid_stat##*[! ]}"}"
  fi
}
# link_whole PATH: 0 when this shell made PATH, holding lock_text.
link_whole() {
  link_tmp="$1.$$.tmp"
  rm -f "$link_tmp"
  (umask 077 && set -C && printf '%s' "$lock_text" > "$link_tmp") 2>/dev/null &&
    ln "$link_tmp" "$1" 2>/dev/null
  link_made=$?
  rm -f "$link_tmp"
  [ "$link_made" -eq 0 ] && return 0
  # No hard links on this filesystem (some FUSE and network mounts): O_EXCL then write, as umbel.
  [ ! -e "$1" ] && [ ! -L "$1" ] && (umask 077 && set -C && printf '%s' "$lock_text" > "$1") 2>/dev/null
}
# seen_lock PATH: the lock's inode (seen_ino) and text (seen_text), the inode read on both sides of
# the text so that both are one file's; 1 when there is none (or it changed meanwhile).
seen_lock() {
  seen_ino=$(inode_of "$1") || return 1
  seen_text=$(cat "$1" 2>/dev/null) || return 1
  [ "$(inode_of "$1")" = "$seen_ino" ]
}
inode_of() {
  inode=$(ls -di "$1" 2>/dev/null) || return 1
  inode=${inode#"${inode%%[! ]*}"}
  inode=${inode%% *}
  case $inode in '' | *[!0-9]*) return 1 ;; esac
  printf '%s' "$inode"
}
# lock_held DEPTH PATH: whether seen_text's holder still holds it (adapters/lock-file.ts isHeld).
lock_held() {
  holder_start=
  case $seen_text in
    '{"pid":'[1-9]*)
      holder=${seen_text#'{"pid":'}
      holder_pid=${holder%%,*}
      holder=${holder#"$holder_pid"}
      case $holder_pid in *[!0-9]*) return 0 ;; esac
      case $holder in
        ',"start":null,'* | ',"start":null}') ;;
        ',"start":"'*)
          holder=${holder#',"start":"'}
          holder_start=${holder%%'"'*}
          case ${holder#"$holder_start"} in '",'* | '"}') ;; *) return 0 ;; esac
          case $holder_start in '' | *\\*) return 0 ;; esac
          ;;
        *) return 0 ;;
      esac
      ;;
    [1-9]*)
      case $seen_text in *[!0-9]*) return 0 ;; esac
      holder_pid=$seen_text
      ;;
    *'"pid"'* | 0*) return 0 ;;
    *)
      [ "$1" -eq 0 ] || return 0
      if [ "$unreadable" != "$2 $seen_ino $seen_text" ]; then
        unreadable="$2 $seen_ino $seen_text"
        unreadable_since=$waited
      fi
      [ $((waited - unreadable_since)) -lt 5 ]
      return
      ;;
  esac
  pid_runs "$holder_pid" || return 1
  [ -n "$holder_start" ] || return 0
  holder_now=$(pid_start "$holder_pid")
  [ -z "$holder_now" ] || [ "$holder_now" = "$holder_start" ]
}
# take_lock PATH DEPTH: 0 when this shell holds PATH (lock-file.ts take: three rounds of a link and
# a look at what is there).
take_lock() {
  set -- "$1" "$2" 0
  while [ "$3" -lt 3 ]; do
    link_whole "$1" && return 0
    if seen_lock "$1"; then
      lock_held "$2" "$1" && return 1
      [ "$2" -lt 3 ] && reap_lock "$1" "$seen_ino" "$seen_text" "$2" || return 1
    fi
    set -- "$1" "$2" $(($3 + 1))
  done
  return 1
}
# reap_lock PATH INODE TEXT DEPTH: removes the stale lock that was seen, that very file and nothing
# else, under its marker; 1 when another taker is removing it, or it is held after all.
reap_lock() {
  take_lock "$1.reap-$2" $(($4 + 1)) || return 1
  set -- "$@" 0
  if seen_lock "$1" && [ "$seen_ino" = "$2" ] && [ "$seen_text" = "$3" ]; then
    if lock_held "$4" "$1"; then set -- "$1" "$2" "$3" "$4" 1; else rm -f "$1"; fi
  fi
  rm -f "$1.reap-$2"
  return "$5"
}

retire() {
  take_lock "$session_dir/claim.lock" 0 || return 0
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
    unreadable=
    unreadable_since=0
    lock_start=$(pid_start "$$")
    lock_text="{\"pid\":$$,\"start\":${lock_start:+\"}${lock_start:-null}${lock_start:+\"}}"
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
    set -C
    out="$session/notify.$$.json"
    rm -f "$out"
    printf '{"name":"%s","reason":"dead","exitCode":125,"event":"exit","payload":%s}\n' "${session##*/}" "$record" > "$out"
    # Its own process group, named while it runs (as hooks/hook.sh runs it): kill --purge ends it.
    pgid="$session/notify.$$.pgid"
    rm -f "$pgid"
    run_setsid=
    command -v setsid >/dev/null 2>&1 && run_setsid=setsid
    UMBEL_WORKER=${session##*/} UMBEL_OUTCOME=dead $run_setsid sh -c \
      'set -C; printf "%s\n" "$$" > "$1"; shift; sh -c "$1"' umbel-notify "$pgid" "$(cat "$session/notify.cmd")" \
      < "$out" 2>&1 | append_log "$session/notify.log"
    rm -f "$out" "$pgid"
  ) </dev/null >/dev/null 2>&1 &
fi
exit "$status"
