#!/usr/bin/env python3
"""subreaper.py CMD [ARGS...] - exec CMD as a "child subreaper" (prctl PR_SET_CHILD_SUBREAPER).

./lab runs its namespace phase through this: processes orphaned by a component that stops
(e.g. workers whose parent got killed first) are re-parented to ./lab, which reaps them, instead
of to an init that may not, so no zombie outlives a run. The flag survives execve.
"""
import ctypes
import os
import sys

PR_SET_CHILD_SUBREAPER = 36

if len(sys.argv) < 2:
    sys.exit("usage: subreaper.py CMD [ARGS...]")
try:
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
except (OSError, AttributeError):
    pass  # without it the lab still works; orphans then go to init
os.execvp(sys.argv[1], sys.argv[1:])
