# shellcheck shell=bash
# Progress and error output of ./lab. Progress goes to stdout with a "[lab HH:MM:SS]" prefix;
# a failure is one line "lab: <reason>" on stderr, so users never have to read a trace.

log() { printf '[lab %(%H:%M:%S)T] %s\n' -1 "$*"; }

# fail MESSAGE — print the one-line reason and return 1 (callers decide whether to exit).
fail() { printf 'lab: %s\n' "$*" >&2; return 1; }

# die MESSAGE — print the one-line reason and exit 1 (the EXIT trap then cleans up).
die() { fail "$*"; exit 1; }

# show_tail FILE [N] — the end of a quiet tool's log, indented, for when that tool failed.
show_tail() { tail -n "${2:-25}" "$1" 2>/dev/null | sed 's/^/  | /' >&2; }

# rel PATH — PATH relative to the repo root, for shorter messages.
rel() { printf '%s' "${1#"$ROOT"/}"; }

# last_log_line FILE — the line of a component's log that best explains why it stopped:
# the last line that looks like an error, else the last non-empty line.
last_log_line() {
  local f=$1 line
  if [[ ! -s $f ]]; then printf '(no output in %s)' "$(rel "$f")"; return; fi
  line=$(sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' -e 's/[[:space:]]*$//' "$f" |
    grep -Ei 'error|fatal|fail|exception|cannot|can.t|denied|refused|not found|no such|in use|invalid|usage' |
    tail -n 1)
  [[ -n $line ]] || line=$(grep -v '^[[:space:]]*$' "$f" | tail -n 1)
  line=${line#"${line%%[![:space:]]*}"}
  printf '%s' "${line:0:240}"
}
