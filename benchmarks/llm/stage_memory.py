#!/usr/bin/env python3
"""Runs a command and reports its peak resident memory per build stage.

winml-make prints one line per stage event when its output is not a
terminal ("  running    <model>/<stage>: ...", "  completed  <model>/<stage>
(..)"). Each stage runs in a worker process, winml-make started again
(src/base/worker_process.h), so a stage's memory is mostly the worker's.
For each stage this reports, as JSON on stdout:

  worker_peak_rss_bytes  the largest VmHWM of the processes below winml-make
                         (the stage's worker and anything it starts) seen
                         while the stage ran;
  parent_peak_rss_bytes  winml-make's own VmHWM, reset when the stage starts;
  peak_rss_bytes         their sum: an upper bound of the stage's resident
                         memory (pages the two share, such as the shared
                         libraries' code, are counted twice).

  {"wall_seconds": .., "peak_rss_bytes": .., "exit_code": .., "stages": {"optimize": {"seconds": .., ...}, ..}}

Why /proc and not RUSAGE_CHILDREN: getrusage(RUSAGE_CHILDREN) gives the same
kernel high-water mark (ru_maxrss), but only of children that have ended and
been waited for, and only the largest of them all. The workers are
winml-make's children, so their peaks reach this script only when winml-make
itself exits, folded into one maximum over every stage: no stage's own
figure. VmHWM in /proc/PID/status is that same high-water mark, kept by the
kernel however briefly the peak lasted, so reading it every few milliseconds
while the worker lives misses only a rise within its last interval. The
whole run's RUSAGE_CHILDREN maximum, exact, is reported beside the stages'
(children_max_rss_bytes) as a check on that.

Each worker is counted to the stage in whose window (from the previous
stage's end to its own) it was last seen. That holds when stages run one at
a time: one model, built with -j 1 (otherwise analyze runs beside quantize).
A stage that started while another ran is marked "overlapped": its figures
may hold the other's.

usage: stage_memory.py COMMAND [ARGS...]     (stdout and stderr of COMMAND go to stderr, prefixed)
"""
import json
import os
import re
import resource
import subprocess
import sys
import threading
import time

EVENT = re.compile(r"^\s+(running|completed|cached|FAILED|up-to-date)\s+([^\s/]+)/([^\s:]+)")
INTERVAL = 0.005  # seconds between readings of the workers' VmHWM


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


def parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def descendants(root):
    """The processes below root, from one pass over /proc (this kernel has no
    /proc/PID/task/TID/children)."""
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            children.setdefault(parent_of(int(name)), []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class WorkerWatch(threading.Thread):
    """Follows every process below `root` until stopped: for each, the
    largest VmHWM read and when it was last seen alive."""

    def __init__(self, root):
        super().__init__(daemon=True)
        self.root, self.peaks, self.last_seen = root, {}, {}
        self.lock, self.done = threading.Lock(), threading.Event()

    def run(self):
        known, tick = [], 0
        while not self.done.is_set():
            if tick % 4 == 0:  # new processes: a worker lives at least a few ms
                known = descendants(self.root)
            tick += 1
            for pid in known:
                kib = status_kib(pid, "VmHWM")
                if kib == 0:
                    continue  # ended (or a zombie: its memory is gone)
                now = time.monotonic()  # after the reading: it is then no later than the exit
                with self.lock:
                    self.peaks[pid] = max(self.peaks.get(pid, 0), kib * 1024)
                    self.last_seen[pid] = now
            time.sleep(INTERVAL)

    def peak_between(self, start, end):
        with self.lock:
            return max([self.peaks[p] for p, t in self.last_seen.items() if start < t <= end], default=0)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    start = time.monotonic()
    proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    watch = WorkerWatch(proc.pid)
    watch.start()
    stages, began, overlapped = {}, {}, set()
    window_start = start  # the previous stage's end: its worker was last seen before it
    for line in proc.stdout:
        sys.stderr.write("| " + line)
        m = EVENT.search(line)
        if not m:
            continue
        event, stage = m.group(1), m.group(3).rstrip(":")
        now = time.monotonic()
        if event == "running":
            if began:
                overlapped.update(began, [stage])
            reset_peak(proc.pid)
            began[stage] = now
            continue
        if stage in began:
            parent = status_kib(proc.pid, "VmHWM") * 1024
            # The worker has been waited for before its stage is reported
            # done, so it was last seen before `now`.
            worker = watch.peak_between(window_start, now)
            stages[stage] = {"seconds": round(now - began.pop(stage), 3), "peak_rss_bytes": parent + worker,
                             "worker_peak_rss_bytes": worker, "parent_peak_rss_bytes": parent}
            if stage in overlapped:
                stages[stage]["overlapped"] = True
        window_start = now
    code = proc.wait()
    watch.done.set()
    watch.join()
    # The exact largest peak of winml-make (since its last reset) and of each
    # of its workers, as the kernel kept them when they ended.
    children_max = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    peak = max([children_max] + [s["peak_rss_bytes"] for s in stages.values()])
    print(json.dumps({"wall_seconds": round(time.monotonic() - start, 3), "peak_rss_bytes": peak,
                      "children_max_rss_bytes": children_max, "exit_code": code, "stages": stages}))
    sys.exit(code)


if __name__ == "__main__":
    main()
