#!/usr/bin/env bash
# Usage (netns.sh netns_run only, never by hand): in-netns.sh FUNC [ARGS...] — the namespace phase of a ./lab command.
# netns_run execs this inside the command's new private network and mount namespaces (same pid as ./lab, as a child
# subreaper, LAB_IN_NETNS=1): it loads ./lab's functions (all.sh), brings the namespace's loopback up (netns_setup)
# and runs FUNC, the command's *_in_netns function (e.g. demo_in_netns), with ARGS. ./lab itself is not run again:
# the host phase already parsed the command line, built and prepared the run directory; what it decided reaches
# FUNC as ARGS or exported LAB_* / BENCH_* variables.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
# shellcheck source=harness/lib/all.sh
source "$ROOT/harness/lib/all.sh"
cd "$ROOT" || exit 1
[[ ${LAB_IN_NETNS:-} == 1 && ${1:-} == *_in_netns ]] && declare -F "$1" >/dev/null ||
  die "in-netns.sh runs a command's namespace phase (a *_in_netns function) inside ./lab's private namespace, not '${1:-}'"
netns_setup
"$@"
