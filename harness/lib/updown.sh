# shellcheck shell=bash
# `./lab down`: stops what `./lab up` left running (out/up/pids), but only processes that still
# are the command that was started: a recycled pid is never signalled.

# up_cmd_pattern NAME — what /proc/PID/cmdline of component NAME contains.
up_cmd_pattern() {
  case $1 in
    rtpengine | rtpengine[0-9]* | kamailio) printf '%s' "${1%%[0-9]*}" ;;
    gateway | gateway[0-9]* | gateway-*) printf 'signaling-gw.jar' ;;
    redis) printf 'redis-server' ;;  # --relays > 1 (harness/lib/scaleout.sh)
    haproxy) printf 'haproxy' ;;      # --gateways > 1
    ims3gpp) printf 'run-core.sh' ;;  # --ims 3gpp: the whole 3GPP core (harness/lib/ims3gpp.sh)
    stun | turn*) printf 'turnserver' ;; # coturn (the test topology's STUN/TURN, up --turn: components.sh start_turn)
    ue*) printf 'sipp' ;;
    *) return 1 ;;
  esac
}

# up_pid_is NAME PID — PID is alive and still runs NAME's command.
up_pid_is() {
  local pattern cmdline
  pattern=$(up_cmd_pattern "$1") || return 1
  proc_alive "$2" || return 1
  cmdline=$(tr '\0' ' ' <"/proc/$2/cmdline" 2>/dev/null) || return 1
  [[ $cmdline == *"$pattern"* ]]
}

# up_running PIDS_FILE — print the "name pid" lines whose process is still that component.
up_running() {
  local name pid
  [[ -f $1 ]] || return 0
  while read -r name pid; do
    [[ -n ${pid:-} ]] && up_pid_is "$name" "$pid" && echo "$name $pid"
  done <"$1"
}

lab_down() {
  local pids="$ROOT/out/up/pids" entries=() name pid i stopped=0
  if [[ ! -f $pids ]]; then log "nothing to stop: no $(rel "$pids") (the lab is not up)"; return 0; fi
  mapfile -t entries <"$pids"
  for ((i = ${#entries[@]} - 1; i >= 0; i--)); do   # newest first
    read -r name pid <<<"${entries[i]}"
    [[ -n ${pid:-} ]] || continue
    if up_pid_is "$name" "$pid"; then
      proc_stop "$name" "$pid"
      stopped=$((stopped + 1))
    else
      log "$name (pid $pid) was not running any more"
    fi
  done
  rm -f "$pids"
  log "lab is down: stopped $stopped process(es)"
}
