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
    vrrp[0-9]*) printf 'keepalived' ;; # --relays > 1: relay host i's VRRP (scaleout.sh)
    ims3gpp | outside-core) printf 'run-core.sh' ;; # --ims 3gpp: the whole 3GPP core (harness/lib/ims3gpp.sh); ims-external.sh's outsider
    stun | turn*) printf 'turnserver' ;; # coturn (the test topology's STUN/TURN, up --turn: components.sh start_turn)
    datachannel) printf 'datachannel/datachannel' ;; # the data-channel endpoint (components.sh start_datachannel)
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
  # the scale-out hosts' namespaces `up` created (out/up/netns, harness/lib/scaleout.sh): only names of the lab's prefix
  if [[ -f $ROOT/out/up/netns ]]; then
    local ns
    while read -r ns; do
      [[ $ns == "$LAB_NS_HOSTS_PREFIX"* && -e /run/netns/$ns ]] && ip netns del "$ns" && log "deleted network namespace $ns"
    done < <(tac "$ROOT/out/up/netns")
    rm -f "$ROOT/out/up/netns"
  fi
  log "lab is down: stopped $stopped process(es)"
}

cmd_up() {
  local running users='' bind_given=''
  while (($#)); do
    case $1 in
      --users) [[ ${2:-} =~ ^[0-9]+$ ]] || usage_error "--users needs a number of users"; users=$2; shift 2 ;;
      --users=*) users=${1#--users=}; [[ $users =~ ^[0-9]+$ ]] || usage_error "--users needs a number of users"; shift ;;
      --bind) [[ -n ${2:-} ]] || usage_error "--bind needs an address"; LAB_BIND=$2 bind_given=1; shift 2 ;;
      --bind=*) LAB_BIND=${1#--bind=} bind_given=1; shift ;;
      --ims) [[ ${2:-} == 3gpp || ${2:-} == external ]] || usage_error "up --ims takes 3gpp or external"; LAB_IMS=$2; shift 2 ;;
      --ims=3gpp | --ims=external) LAB_IMS=${1#--ims=}; shift ;;
      --tls-cert) [[ -n ${2:-} ]] || usage_error "--tls-cert needs a PEM certificate file"; LAB_TLS_CERT=$2; shift 2 ;;
      --tls-cert=*) LAB_TLS_CERT=${1#--tls-cert=}; shift ;;
      --tls-key) [[ -n ${2:-} ]] || usage_error "--tls-key needs a PEM private key file"; LAB_TLS_KEY=$2; shift 2 ;;
      --tls-key=*) LAB_TLS_KEY=${1#--tls-key=}; shift ;;
      --turn) LAB_TURN=1; shift ;;
      --gateways) # each on a host of its own (harness/lib/scaleout.sh): the limit is memory (a JVM each), not ports
        [[ ${2:-} =~ ^[1-9][0-9]?$ && $2 -le $LAB_HOSTS_MAX ]] || usage_error "--gateways needs a number from 1 to $LAB_HOSTS_MAX"; LAB_GATEWAYS=$2; shift 2 ;;
      --relays) [[ ${2:-} =~ ^[1-9][0-9]?$ && $2 -le $LAB_HOSTS_MAX ]] || usage_error "--relays needs a number from 1 to $LAB_HOSTS_MAX"; LAB_RELAYS=$2; shift 2 ;;
      *)
        ext_option "$1" "${2-}"
        ((EXT_TAKEN > 0)) || usage_error "unknown option for up: $1"
        shift "$EXT_TAKEN" ;;
    esac
  done
  if scale_out; then
    # the hosts have their own addresses on the lab bridge (docs/scale-out.md "Hosts"): the browsers' entry is
    # HAProxy's host, reached from the client host (namespace labh-client); the host's own network is not touched
    [[ $LAB_BIND == 127.0.0.1 ]] || usage_error "--gateways/--relays: the browsers' entry is HAProxy's host address on the lab bridge, not --bind (docs/scale-out.md)"
    [[ ${LAB_TURN:-} != 1 ]] || usage_error "--gateways/--relays work without --turn (no TURN host in the scale-out layout yet)"
    ((EUID == 0)) || usage_error "--gateways/--relays need root: each component gets a network namespace of its own"
  fi
  [[ $LAB_BIND =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || usage_error "--bind wants an IPv4 address, not '$LAB_BIND'"
  [[ ${LAB_TURN:-} != 1 || $LAB_BIND != 0.0.0.0 ]] || usage_error "--turn needs one address to relay from: --bind ADDR, not 0.0.0.0"
  if [[ -n ${LAB_TLS_CERT:-}${LAB_TLS_KEY:-} ]]; then
    [[ -n ${LAB_TLS_CERT:-} && -n ${LAB_TLS_KEY:-} ]] || usage_error "--tls-cert and --tls-key go together"
    [[ -r $LAB_TLS_CERT ]] || usage_error "--tls-cert: cannot read '$LAB_TLS_CERT'"
    [[ -r $LAB_TLS_KEY ]] || usage_error "--tls-key: cannot read '$LAB_TLS_KEY'"
    openssl x509 -in "$LAB_TLS_CERT" -noout 2>/dev/null || usage_error "--tls-cert: '$LAB_TLS_CERT' is not a PEM certificate"
    openssl pkey -in "$LAB_TLS_KEY" -noout 2>/dev/null || usage_error "--tls-key: '$LAB_TLS_KEY' is not an unencrypted PEM private key"
    LAB_TLS_CERT=$(realpath "$LAB_TLS_CERT") LAB_TLS_KEY=$(realpath "$LAB_TLS_KEY")
    [[ $(stat -c %a "$LAB_TLS_KEY") == ?00 ]] || log "warning: --tls-key $LAB_TLS_KEY is readable by other users (chmod 600 it)"
    LAB_TLS=1
  fi
  # beyond loopback the browser side is HTTPS/WSS only (docs/security.md "TLS")
  [[ $LAB_BIND == 127.* ]] || LAB_TLS=1
  if [[ -n $bind_given && $LAB_BIND == 127.* && ${LAB_TLS:-0} != 1 ]]; then
    log "--bind $LAB_BIND is a loopback address: plain http:// and ws:// as without --bind (https:// and wss:// come with a non-loopback address, or --tls-cert/--tls-key)"
  fi
  [[ -z $users || $LAB_IMS == plain ]] || usage_error "--users works with the light core only (not --ims $LAB_IMS)"
  [[ -z ${LAB_EXT_CALL_TO:-} ]] || usage_error "--call-to is an option of compliance, not up"
  # the hosts layout carries the light core or the 3GPP core on its IMS host; an outside IMS is not on the lab bridge
  ! scale_out || [[ $LAB_IMS != external ]] || usage_error "--gateways/--relays work with the light core or --ims 3gpp (not --ims external: its P-CSCF is not on the hosts' bridge)"
  export LAB_BIND LAB_IMS LAB_TLS LAB_GATEWAYS LAB_RELAYS LAB_TURN
  ext_check
  ims3_lab_packages
  ensure_packages
  ext_check_file
  ext_configure
  ims3_lab_build && build_gateway && build_harness || exit 1   # the harness's vendor step provides the page's libraries
  running=$(up_running "$ROOT/out/up/pids" | tr '\n' ' ')
  [[ -z $running ]] || die "the lab is already up (${running% }); run ./lab down first"
  lab_prepare_run up
  [[ -z $users ]] || provision_users "$users" "$LAB_RUN_DIR/users.txt" || exit 1
  lab_tls_prepare || exit 1
  procs_install_traps
  lab_start_all || exit 1
  LAB_KEEP_RUNNING=1
  scale_print
  up_print_access
}

# up_web_url SHOWN_ADDR — the web client's URL as `./lab up` serves it: https:// with TLS (a non-loopback
# --bind or --tls-cert: plain http:// is not served then), else http://.
up_web_url() {
  local scheme=http
  [[ ${LAB_TLS:-0} == 1 ]] && scheme=https
  printf '%s://%s:%s/' "$scheme" "$1" "$LAB_GW_PORT"
}

# up_print_access — where to point a browser and whom to log in as (ims-sim/users.txt).
up_print_access() {
  local shown=$LAB_BIND user browser=() file="$ROOT/ims-sim/users.txt"
  [[ $shown == 0.0.0.0 ]] && shown="<this host's address>"
  if ims3_lab_wanted; then ims3_print_access "$shown"; return; fi
  if ext_mode; then ext_print_access "$shown"; return; fi
  while IFS=: read -r user _; do
    [[ -z $user || $user == \#* || $user == ue* ]] && continue
    browser+=("$user")
  done <"$file"
  if [[ $LAB_TLS == 1 ]]; then
    log "the lab is up. Web client: https://$shown:$LAB_GW_PORT/ (TLS only: plain http:// is not served)"
    log "certificate $LAB_TLS_CERT, $(openssl x509 -in "$LAB_TLS_CERT" -noout -fingerprint -sha256 2>/dev/null)"
    [[ $LAB_TLS_CERT == "$ROOT/out/tls/gateway.crt" ]] &&
      log "it is self-signed: the browser asks once to accept it (compare the fingerprint), or give your own with --tls-cert/--tls-key"
  else
    log "the lab is up. Web client: http://$shown:$LAB_GW_PORT/"
  fi
  [[ ${LAB_TURN:-} == 1 ]] && log "TURN: turn:$(lab_turn_addr) (coturn; the pages get credentials at login; secret in $(rel "$LAB_RUN_DIR")/turn/secret)"
  # passwords are never printed (terminal scroll-back, CI logs): where to read them (docs/security.md "Secrets")
  log "log in as: ${browser[*]}; the passwords are in $(rel "$file") (user:password)${IMS_USERS:+, those of the generated users in $(rel "$IMS_USERS") (mode 0600)}"
  log "call ue1 (answers and echoes the audio), ue3 (answers, then hangs up) or ue7 (audio + video echo, tick video); logs: $(rel "$LAB_LOGDIR")/"
  log "stop it with: ./lab down"
}
