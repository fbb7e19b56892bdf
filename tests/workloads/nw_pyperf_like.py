#!/usr/bin/env python3
"""A harness shaped like pyperf, for --windows pyperf (pyperf itself is not in Debian 12).

`nw_pyperf_like.py WORKERS LOOPS TRUTHFILE`: the master runs WORKERS worker processes of this very
script one after another, as pyperf's master does (`sys.executable bench.py --worker ...`); each
worker adds LOOPS x 100,000 numbers. With NW_WATCH_PID set (a stopped CPU hog on the benchmark's
CPU), the master continues the hog for the odd workers and stops it after them. One line per worker
in TRUTHFILE: "k wall_ns inner_hog_ns outer_hog_ns": the master's clock around the worker (before
its fork to after its reaping), the hog's CPU time inside the worker's own work (the worker reads
it) and around the worker (the master reads it).
"""
import os
import signal
import subprocess
import sys
import time


def hog_runtime():
    pid = os.environ.get("NW_WATCH_PID")
    if not pid:
        return 0
    with open(f"/proc/{pid}/schedstat") as f:
        return int(f.read().split()[0])


def wait_stopped(pid):
    for _ in range(100000):
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "T":
                return


def worker(loops, inner_file):
    h0 = hog_runtime()
    total = 0
    for _ in range(loops):
        for i in range(100000):
            total += i
    with open(inner_file, "w") as f:
        f.write(str(hog_runtime() - h0))


def master(workers, loops, truth):
    hog = os.environ.get("NW_WATCH_PID")
    inner_file = truth + ".inner"
    with open(truth, "w") as out:
        for k in range(workers):
            noisy = hog and k % 2 == 1
            if noisy:
                os.kill(int(hog), signal.SIGCONT)
            h0, t0 = hog_runtime(), time.monotonic_ns()
            subprocess.run([sys.executable, __file__, "--worker", str(loops), inner_file], check=True)
            t1, h1 = time.monotonic_ns(), hog_runtime()
            if noisy:
                os.kill(int(hog), signal.SIGSTOP)
                wait_stopped(hog)
            with open(inner_file) as f:
                inner = int(f.read())
            out.write(f"{k} {t1 - t0} {inner} {h1 - h0}\n")
    os.unlink(inner_file)


if __name__ == "__main__":
    if sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), sys.argv[3])
    else:
        master(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
