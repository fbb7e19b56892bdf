# SPDX-License-Identifier: Apache-2.0
"""A benchmark that marks its windows on the marker fd (any language can; this is Python):
    python3 nw_windows.py WINDOWS LOOPS [TRUTHFILE]
Each window runs LOOPS iterations of a fixed loop, between the lines "begin K" and "end" written
to $NOISEWATCH_MARKER_FD. With NW_WATCH_PID set (a stopped CPU hog on the benchmark's CPU) the hog
is continued for the odd windows and stopped again before the next one. With TRUTHFILE, one line
per window: "k inner_ns outer_ns", the hog's CPU time (schedstat) from just after the begin line
to just before the end line, and from just before the begin to just after the end."""
import os
import signal
import sys
import time

windows = int(sys.argv[1]) if len(sys.argv) > 1 else 10
loops = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
truth = open(sys.argv[3], "a") if len(sys.argv) > 3 else None
fd = int(os.environ["NOISEWATCH_MARKER_FD"]) if "NOISEWATCH_MARKER_FD" in os.environ else None
hog = int(os.environ["NW_WATCH_PID"]) if "NW_WATCH_PID" in os.environ else None


def hog_runtime():
    with open(f"/proc/{hog}/schedstat") as f:
        return int(f.read().split()[0])


def wait_stopped():
    for _ in range(100000):
        with open(f"/proc/{hog}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] in ("T", "t"):
                return
        time.sleep(0.0001)


for k in range(windows):
    noisy = hog is not None and k % 2 == 1
    if noisy:
        os.kill(hog, signal.SIGCONT)
    o0 = hog_runtime() if hog else 0
    if fd is not None:
        os.write(fd, b"begin %d\n" % k)
    h0 = hog_runtime() if hog else 0
    x = 0
    for i in range(loops):
        x += i
    h1 = hog_runtime() if hog else 0
    if fd is not None:
        os.write(fd, b"end\n")
    o1 = hog_runtime() if hog else 0
    if noisy:
        os.kill(hog, signal.SIGSTOP)
        wait_stopped()
    if truth:
        truth.write(f"{k} {h1 - h0} {o1 - o0}\n")
if truth:
    truth.close()
