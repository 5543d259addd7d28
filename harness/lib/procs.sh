# shellcheck shell=bash
# Process supervision: the lab's one supervisor. Every process the lab starts runs in a session of its own
# (setsid), so one signal to its process group also reaches what it forked (kamailio workers, Chromium), and a
# Ctrl-C on the terminal reaches only ./lab, which then stops everything in reverse start order.
# What the Node side starts (tests, bench, demo, soak: harness/kit/procs.mjs, its client) is written to the
# ledger `children` beside $LAB_PIDS with its start time; cleanup stops what of it still runs, too.
# Nothing that the lab did not start is ever signalled.

LAB_STARTED=()        # "name pid [grace_s]" in start order: what cleanup stops (proc_stop's grace, default 5 s)
LAB_KEEP_RUNNING=0    # set by `up` once everything is ready: leave the processes running
LAB_LAST_PID=

# proc_close_fds — in a subshell about to exec a component: close every descriptor above 2, so that the component
# holds nothing ./lab was given. A component `./lab up` leaves running would otherwise keep, e.g., the lock of
# `flock LOCK ./lab ...` (flock hands its command the locked descriptor) for as long as it runs.
proc_close_fds() {
  local fd
  for fd in /proc/"$BASHPID"/fd/*; do
    fd=${fd##*/}
    [[ $fd =~ ^[0-9]+$ ]] && ((fd > 2)) && eval "exec $fd>&-" 2>/dev/null
  done
  return 0
}

# proc_spawn NAME LOG CMD... — start CMD in the background, in its own session, output to LOG, with no descriptor
# of ./lab's but these (proc_close_fds). The subshell execs setsid, which execs CMD: the pid is CMD's.
proc_spawn() {
  local name=$1 logf=$2; shift 2
  (proc_close_fds; exec setsid "$@") >"$logf" 2>&1 </dev/null &
  LAB_LAST_PID=$!
  LAB_STARTED+=("$name $LAB_LAST_PID")
}

# procs_forget "NAME PID" — take one entry out of LAB_STARTED: procs_cleanup then leaves that process running (its
# caller stops it later, e.g. the external pass of ./lab test that outlives the light core's pass).
procs_forget() {
  local kept=() e
  for e in "${LAB_STARTED[@]}"; do [[ $e == "$1" ]] || kept+=("$e"); done
  LAB_STARTED=("${kept[@]}")
}

# proc_start NAME CMD... — start a lab component: log in $LAB_LOGDIR/NAME.log, "NAME PID" in $LAB_PIDS. With
# LAB_PROC_NETNS set, in that network namespace (`ip netns exec` execs CMD: the pid is CMD's, as without).
proc_start() {
  local name=$1; shift
  local logf="$LAB_LOGDIR/$name.log"
  [[ -n ${LAB_PROC_NETNS:-} ]] && set -- ip netns exec "$LAB_PROC_NETNS" "$@"
  proc_spawn "$name" "$logf" "$@"
  echo "$name $LAB_LAST_PID" >>"$LAB_PIDS"
  log "started $name (pid $LAB_LAST_PID, ${LAB_PROC_NETNS:+namespace $LAB_PROC_NETNS, }log $(rel "$logf"))"
}

# proc_alive PID — the process exists and is not a zombie.
proc_alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat%% *} != Z ]]
}

# group_alive PGID — some live (non-zombie) process is still in process group PGID.
group_alive() {
  ps -e -o pgid=,stat= 2>/dev/null | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'
}

# proc_wait_ready NAME PID TIMEOUT_S WHAT CHECK... — poll CHECK until it succeeds; fail with one
# line when the process dies or the deadline passes. WHAT says what is being waited for.
proc_wait_ready() {
  local name=$1 pid=$2 timeout=$3 what=$4; shift 4
  local logf="$LAB_LOGDIR/$name.log" deadline=$((SECONDS + timeout))
  while :; do
    if ! proc_alive "$pid"; then
      fail "$name failed to start: $(last_log_line "$logf") (log: $(rel "$logf"))"
      return 1
    fi
    if "$@" >/dev/null 2>&1; then log "$name is ready ($what)"; return 0; fi
    if ((SECONDS >= deadline)); then
      fail "$name failed to start: not ready after ${timeout}s (waited for: $what); last log line: $(last_log_line "$logf") (log: $(rel "$logf"))"
      return 1
    fi
    sleep 0.5
  done
}

# proc_stop NAME PID [GRACE_S] — TERM the process group, KILL it if still there after GRACE_S (default 5). A pid that
# is alive but no longer leads its own group (a component `./lab up` started in an earlier shell) gets
# the same, to itself only.
proc_stop() {
  local name=$1 pid=$2 grace=${3:-5} target=-$2 alive=group_alive i
  if proc_alive "$pid" && [[ $(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ') != "$pid" ]]; then
    target=$pid alive=proc_alive
  fi
  if $alive "$pid"; then
    kill -TERM -- "$target" 2>/dev/null
    for ((i = 0; i < grace * 5; i++)); do $alive "$pid" || break; sleep 0.2; done
    if $alive "$pid"; then
      kill -KILL -- "$target" 2>/dev/null
      log "killed $name (pid $pid): it ignored SIGTERM for ${grace}s"
    else
      log "stopped $name (pid $pid)"
    fi
  fi
  wait "$pid" 2>/dev/null
  return 0
}

# procs_restarted — "NAME PID" of the components a test restarted (harness/kit/restart.mjs marks their
# lines in $LAB_PIDS with "restarted"), newest first: the lab's cleanup stops them too.
procs_restarted() {
  [[ -n ${LAB_PIDS:-} && -f $LAB_PIDS ]] || return 0
  awk '$3 == "restarted" { print $1, $2 }' "$LAB_PIDS" | tac
}

# proc_starttime PID — field 22 of /proc/PID/stat (clock ticks after boot): with the pid, it names one process.
proc_starttime() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  read -r -a stat <<<"$stat"
  echo "${stat[19]}"
}

# procs_children [LEDGER] — "NAME PID" of the children the Node side recorded in LEDGER (default: `children`
# beside $LAB_PIDS; harness/kit/procs.mjs writes "NAME PID STARTTIME") that still run, newest first. A pid
# whose start time differs is another process by now and is left alone.
procs_children() {
  local ledger=${1:-${LAB_PIDS:+${LAB_PIDS%/*}/children}} name pid since
  [[ -n $ledger && -f $ledger ]] || return 0
  while read -r name pid since; do
    [[ $pid =~ ^[0-9]+$ ]] && proc_alive "$pid" && [[ $(proc_starttime "$pid") == "$since" ]] && echo "$name $pid"
  done < <(tac "$ledger")
}

# procs_cleanup — stop everything this lab process started, newest first. Runs from the EXIT trap.
procs_cleanup() {
  ((LAB_KEEP_RUNNING)) && return 0
  trap '' INT TERM HUP   # a second Ctrl-C must not cut the cleanup short
  local i name pid grace
  while read -r name pid; do
    [[ -n $pid ]] && proc_stop "$name" "$pid"
  done < <(procs_restarted)
  # what the Node side started and left running: before the runner (newest in LAB_STARTED) stops, so that
  # the same pid can not have been recycled in between
  while read -r name pid; do
    log "$name (pid $pid) was left running by the Node side: stopping it"
    proc_stop "$name" "$pid"
  done < <(procs_children)
  for ((i = ${#LAB_STARTED[@]} - 1; i >= 0; i--)); do
    read -r name pid grace <<<"${LAB_STARTED[i]}"
    proc_stop "$name" "$pid" "${grace:-5}"
  done
  LAB_STARTED=()
  declare -F hosts_teardown >/dev/null && hosts_teardown # the scale-out hosts' namespaces (scaleout.sh)
  trap - INT TERM HUP
}

procs_install_traps() {
  trap procs_cleanup EXIT
  trap 'echo >&2; log "interrupted: cleaning up"; exit 130' INT
  trap 'log "terminated: cleaning up"; exit 143' TERM
  trap 'exit 129' HUP
}

# run_foreground NAME TIMEOUT_S CMD... — run CMD like a component (own session, log file,
# stopped by cleanup) while streaming its output here; returns its exit status. Waiting with
# `wait` (not a foreground child) keeps ./lab responsive to signals while CMD runs.
run_foreground() {
  local name=$1 timeout=$2; shift 2
  local logf="$LAB_LOGDIR/$name.log" pid tailpid rc
  : >"$logf"
  proc_spawn "$name" "$logf" timeout --kill-after=10 "$timeout" "$@"
  pid=$LAB_LAST_PID
  [[ -n ${LAB_RUN_DIR:-} ]] && echo "$name $pid" >>"$LAB_RUN_DIR/runners" # for lab_reap_leftovers
  setsid tail -n +1 -f --pid="$pid" "$logf" &
  tailpid=$!
  LAB_STARTED+=("$name-output $tailpid")
  wait "$pid"; rc=$?
  wait "$tailpid" 2>/dev/null
  ((rc == 124)) && fail "$name did not finish within ${timeout}s"
  return "$rc"
}

# port_owner PORT PROTO — if something listens on PORT (tcp|udp), print "pid N, NAME" and return 0.
port_owner() {
  local line who
  line=$(ss -H -ln"${2:0:1}"p "sport = :$1" 2>/dev/null | head -n 1)
  [[ -n $line ]] || return 1
  who=$(grep -o 'users:(("[^"]*",pid=[0-9]*' <<<"$line" | head -n 1 |
    sed -E 's/users:\(\("([^"]*)",pid=([0-9]+)/pid \2, \1/')
  printf '%s' "${who:-pid unknown}"
}

# ports_free PORT/PROTO... — fail with one line for the first port that something listens on.
ports_free() {
  local spec who
  for spec in "$@"; do
    if who=$(port_owner "${spec%/*}" "${spec#*/}"); then
      fail "port $spec is busy ($who)"
      return 1
    fi
  done
}
