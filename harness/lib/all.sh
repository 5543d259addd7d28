# shellcheck shell=bash
# ./lab's functions, loaded once by each of its two entries: `./lab` itself (the host phase of every command, and
# the commands that need no namespace) and harness/lib/in-netns.sh (a command's namespace phase, netns.sh netns_run).
# Needs ROOT (the repo root). Also the usage line of harness/lib/help.txt, which the cmd_* functions print on a
# usage error.

# shellcheck source=harness/lib/log.sh
source "$ROOT/harness/lib/log.sh"
# shellcheck source=harness/lib/addresses.sh
source "$ROOT/harness/lib/addresses.sh"
# shellcheck source=harness/lib/deps.sh
source "$ROOT/harness/lib/deps.sh"
# shellcheck source=harness/lib/build.sh
source "$ROOT/harness/lib/build.sh"
# shellcheck source=harness/lib/procs.sh
source "$ROOT/harness/lib/procs.sh"
# shellcheck source=harness/lib/netns.sh
source "$ROOT/harness/lib/netns.sh"
# shellcheck source=harness/lib/components.sh
source "$ROOT/harness/lib/components.sh"
# shellcheck source=harness/lib/ipv6.sh
source "$ROOT/harness/lib/ipv6.sh"
# shellcheck source=harness/lib/ims3gpp.sh
source "$ROOT/harness/lib/ims3gpp.sh"
# shellcheck source=harness/lib/imsext.sh
source "$ROOT/harness/lib/imsext.sh"
# shellcheck source=harness/lib/scaleout.sh
source "$ROOT/harness/lib/scaleout.sh"
# shellcheck source=harness/lib/updown.sh
source "$ROOT/harness/lib/updown.sh"
# shellcheck source=harness/lib/tests.sh
source "$ROOT/harness/lib/tests.sh"
# shellcheck source=harness/lib/bench.sh
source "$ROOT/harness/lib/bench.sh"
# shellcheck source=harness/lib/compliance.sh
source "$ROOT/harness/lib/compliance.sh"
# shellcheck source=harness/lib/scenario.sh
source "$ROOT/harness/lib/scenario.sh"
# shellcheck source=harness/lib/soak.sh
source "$ROOT/harness/lib/soak.sh"
# shellcheck source=harness/lib/demo.sh
source "$ROOT/harness/lib/demo.sh"
# shellcheck source=harness/lib/docker.sh
source "$ROOT/harness/lib/docker.sh"

# The help text lives apart (harness/lib/help.txt); its first line is the usage line, printed on usage errors.
LAB_HELP="$ROOT/harness/lib/help.txt"
IFS= read -r USAGE <"$LAB_HELP"

usage_error() { printf 'lab: %s\n%s\n' "$1" "$USAGE" >&2; exit 2; }
