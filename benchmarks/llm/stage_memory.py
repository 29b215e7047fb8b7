#!/usr/bin/env python3
"""Runs a command and reports its peak resident memory per build stage.

winml-make prints one line per stage event when its output is not a
terminal, on stdout or stderr ("  running    <model>/<stage>: ...", "  completed  <model>/<stage> (..)"). Whenever a stage starts, the
process's peak RSS is reset (writing 5 to /proc/PID/clear_refs); when it
finishes, VmHWM is that stage's peak. With one model the stages run one after
another, so each peak is the stage's own. The whole run's peak and wall time
are reported too, as JSON on stdout:

  {"wall_seconds": .., "peak_rss_bytes": .., "exit_code": .., "stages": {"optimize": {"seconds": .., "peak_rss_bytes": ..}, ..}}

usage: stage_memory.py COMMAND [ARGS...]     (stdout and stderr of COMMAND go to stderr, prefixed)
"""
import json
import os
import re
import resource
import subprocess
import sys
import time

EVENT = re.compile(r"^\s+(running|completed|cached|FAILED|up-to-date)\s+([^\s/]+)/([^\s:]+)")


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def reset_peak(pid):
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    start = time.monotonic()
    proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    stages, began = {}, {}
    for line in proc.stdout:
        sys.stderr.write("| " + line)
        m = EVENT.search(line)
        if not m:
            continue
        event, stage = m.group(1), m.group(3).rstrip(":")
        now = time.monotonic()
        if event == "running":
            reset_peak(proc.pid)
            began[stage] = now
        elif stage in began:
            stages[stage] = {"seconds": round(now - began.pop(stage), 3),
                             "peak_rss_bytes": status_kib(proc.pid, "VmHWM") * 1024}
    code = proc.wait()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    # (Resetting the peak at each stage resets ru_maxrss too: the whole run's
    # peak is the largest of the stages' and what followed the last reset.)
    peak = max([usage.ru_maxrss * 1024] + [s["peak_rss_bytes"] for s in stages.values()])
    print(json.dumps({"wall_seconds": round(time.monotonic() - start, 3),
                      "peak_rss_bytes": peak, "exit_code": code, "stages": stages}))
    sys.exit(code)


if __name__ == "__main__":
    main()
