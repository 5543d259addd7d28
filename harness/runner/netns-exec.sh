#!/usr/bin/env bash
# The browser's "executable" when the lab runs its topology (docs/media.md "Topology"): the driver
# (Playwright / puppeteer-core) starts this instead of the browser, and it execs the real binary inside
# the browser's network namespace. The driver's pipes (stdin/stdout/stderr, fds 3 and 4 of
# --remote-debugging-pipe) pass through exec untouched, so the Node runner stays in the lab's core
# namespace and still drives the browser. LAB_NETNS_EXEC_NS / LAB_NETNS_EXEC_BIN come from browser.mjs.
set -euo pipefail
: "${LAB_NETNS_EXEC_NS:?LAB_NETNS_EXEC_NS is not set (the browser namespace)}"
: "${LAB_NETNS_EXEC_BIN:?LAB_NETNS_EXEC_BIN is not set (the browser binary)}"
exec ip netns exec "$LAB_NETNS_EXEC_NS" "$LAB_NETNS_EXEC_BIN" "$@"
