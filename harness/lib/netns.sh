# shellcheck shell=bash
# `demo` and `test` run the whole lab in one private network namespace that has only loopback:
# no port can clash with the host, and ICE in the browser sees only 127.0.0.1.

# netns_reexec ARGS... — replace this process by ./lab ARGS... inside a new network namespace
# (same pid, so signals sent to ./lab still reach it), as a child subreaper so that it reaps what
# its components orphan. Non-root users get a user namespace too.
netns_reexec() {
  local -a un=(unshare --net)
  ((EUID == 0)) || un=(unshare --user --map-root-user --net)
  log "entering a private network namespace (loopback only)"
  exec "${un[@]}" -- python3 "$ROOT/harness/lib/subreaper.py" env LAB_IN_NETNS=1 "$LAB_SELF" "$@"
}

# netns_setup — inside the namespace: bring loopback up; refuse to run on a real network.
netns_setup() {
  local links
  links=$(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | tr '\n' ' ')
  [[ $links == "lo " ]] || die "LAB_IN_NETNS is set but this network namespace has more than loopback ($links)"
  ip link set lo up || die "cannot bring up loopback in the private network namespace"
}

# netns_enter ARGS... — on the host: re-exec into the namespace; inside it: set it up and return.
netns_enter() {
  if [[ ${LAB_IN_NETNS:-} == 1 ]]; then netns_setup; else netns_reexec "$@"; fi
}
