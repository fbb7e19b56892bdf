#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A harness shaped like pyperf 2.x, for --windows pyperf (pyperf itself is not in Debian 12).

What it reproduces of pyperf (psf/pyperf: _runner.py, _manager.py, _worker.py, _bench.py):
- the process tree: a master that runs worker processes of this very script one after another,
  `sys.executable SCRIPT --worker --pipe FD --worker-task=0 --values N --min-time T
  (--loops L | --calibrate-loops) --warmups W`, with pyperf's minimal environment (PATH, HOME,
  PYTHONPATH, ...), each sending its run back as JSON on the pipe; the helper commands each worker
  forks while it collects its metadata (platform.architecture() runs `file -b`, platform.platform()
  `uname -p`; here also a `uname` that fails, as `file` does where it is not installed), which are
  not workers;
- the worker's run: warm-ups then values, each the time of LOOPS executions of the statement
  (adding 1000 numbers) divided by LOOPS; its metadata `duration` is time.monotonic() around that
  work and the metadata collection, as pyperf's WorkerTask.create_run measures it, and `date` is
  when the metadata was collected;
- without -l, a first worker that calibrates the loops (doubling them until one timing lasts
  --min-time): its run has warm-ups only and `calibrate_loops`, and it is not one of the -p workers;
- the JSON file (-o FILE, refused when it exists; --append FILE, adding to the benchmark of the same
  name or as a new one): {"version": "1.0", "benchmarks": [{"runs": [...], "metadata"}],
  "metadata"}, with what every run of a benchmark shares moved up to the benchmark and what every
  benchmark shares up to the file, as pyperf writes it.

Usage: nw_pyperf_like.py [-p N] [-n VALUES] [-w WARMUPS] [-l LOOPS] [--min-time S] [--name NAME]
                         [-o FILE | --append FILE] [--truth FILE]
or, as earlier tests call it, nw_pyperf_like.py WORKERS UNITS TRUTHFILE: WORKERS workers of one
value of UNITS x 100 loops, no warm-up, no JSON.

With NW_WATCH_PID set (a stopped CPU hog on the benchmark's CPU), the master continues the hog for
the odd workers and stops it after them. With --truth, one line per worker: "k wall_ns
inner_hog_ns outer_hog_ns": the master's clock around the worker (before its fork to after its
reaping), the hog's CPU time inside the worker's own work (the worker reads it) and around the
worker (the master reads it).
"""
import argparse
import datetime
import json
import os
import platform
import signal
import socket
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


def helpers():
    """The commands pyperf's metadata collection forks in the worker (platform.architecture() runs
    `file -b`; platform.platform() runs `uname -p`), and one that fails: helpers, not workers."""
    platform.architecture(sys.executable)
    subprocess.run(["uname", "--no-such-option"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def worker_environ():
    """pyperf's create_environ(): the worker gets only these (NW_WATCH_PID stands for
    --inherit-environ)."""
    keep = ["PATH", "HOME", "TEMP", "PYTHONPATH", "PYTHON_CPU_COUNT", "PYTHON_GIL", "NW_WATCH_PID"]
    return {k: os.environ[k] for k in keep if k in os.environ}


def statement():
    total = 0
    for i in range(1000):
        total += i
    return total


def timed(loops):
    t0 = time.perf_counter()
    for _ in range(loops):
        statement()
    return (time.perf_counter() - t0) / loops


def worker(a):
    start = time.monotonic()
    h0 = hog_runtime()
    warmups, values = [], []
    metadata = {"name": a.name, "unit": "second"}
    loops = a.loops
    if a.calibrate_loops:  # pyperf's WorkerTask.calibrate_loops: warm-ups only
        loops = 1
        while True:
            value = timed(loops)
            warmups.append([loops, value])
            if value * loops >= a.min_time or loops >= 2 ** 32:
                break
            loops *= 2
        metadata["calibrate_loops"] = loops
    else:
        warmups = [[loops, timed(loops)] for _ in range(a.warmups)]
        values = [timed(loops) for _ in range(a.values)]
    inner = hog_runtime() - h0
    helpers()
    metadata.update({"date": datetime.datetime.now().isoformat(" "), "loops": loops,
                     "hostname": socket.gethostname(), "platform": platform.platform(True, False),
                     "python_executable": sys.executable, "python_version": platform.python_version(),
                     "cpu_count": os.cpu_count(), "nw_inner_hog_ns": inner})
    metadata["duration"] = time.monotonic() - start
    run = {"metadata": metadata}
    if values:
        run["values"] = values
    if warmups:
        run["warmups"] = warmups
    with os.fdopen(a.pipe, "w") as pipe:
        json.dump({"version": "1.0", "benchmarks": [{"runs": [run]}]}, pipe)


def spawn_worker(a, k, calibrate, out):
    """One worker, as pyperf's Manager.spawn_worker runs it: its run comes back on a pipe."""
    hog = os.environ.get("NW_WATCH_PID")
    noisy = hog and k % 2 == 1
    if noisy:
        os.kill(int(hog), signal.SIGCONT)
    rfd, wfd = os.pipe()
    cmd = [sys.executable, __file__, "--worker", "--pipe", str(wfd), "--worker-task=0", "--values", str(a.values),
           "--min-time", str(a.min_time)]
    cmd += ["--calibrate-loops"] if calibrate else ["--loops", str(a.loops)]
    cmd += ["--warmups", str(a.warmups), "--name", a.name]
    h0, t0 = hog_runtime(), time.monotonic_ns()
    proc = subprocess.Popen(cmd, env=worker_environ(), pass_fds=[wfd])
    os.close(wfd)
    with os.fdopen(rfd) as pipe:
        text = pipe.read()
    if proc.wait():
        sys.exit(f"worker {k} failed with exit code {proc.returncode}")
    t1, h1 = time.monotonic_ns(), hog_runtime()
    if noisy:
        os.kill(int(hog), signal.SIGSTOP)
        wait_stopped(hog)
    run = json.loads(text)["benchmarks"][0]["runs"][0]
    if out:
        out.write(f"{k} {t1 - t0} {run['metadata']['nw_inner_hog_ns']} {h1 - h0}\n")
    return run


def common(dicts):
    """What every dict has with the same value (pyperf's _common_metadata)."""
    if not dicts:
        return {}
    return {k: v for k, v in dicts[0].items() if all(k in d and d[k] == v for d in dicts[1:])}


def dump(path, benchmarks):
    """benchmarks: [[run with all its metadata]], written with shared metadata moved up."""
    bench_common = [common([r["metadata"] for r in runs]) for runs in benchmarks]
    suite = common(bench_common) if len(benchmarks) > 1 else dict(bench_common[0])
    out = []
    for runs, shared in zip(benchmarks, bench_common):
        b = {"runs": []}
        for r in runs:
            r = dict(r)
            r["metadata"] = {k: v for k, v in r["metadata"].items() if k not in shared}
            if not r["metadata"]:
                del r["metadata"]
            b["runs"].append(r)
        own = {k: v for k, v in shared.items() if k not in suite}
        if own:
            b["metadata"] = own
        out.append(b)
    with open(path, "w") as f:
        json.dump({"version": "1.0", "benchmarks": out, "metadata": suite}, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")


def load(path):
    """A pyperf JSON file as [[run with all its metadata]] (pyperf's Run._json_load)."""
    with open(path) as f:
        data = json.load(f)
    benchmarks = []
    for b in data["benchmarks"]:
        shared = dict(data.get("metadata", {}), **b.get("metadata", {}))
        benchmarks.append([dict(r, metadata=dict(shared, **r.get("metadata", {}))) for r in b["runs"]])
    return benchmarks


def master(a):
    if a.output and os.path.exists(a.output):
        sys.exit(f"ERROR: The JSON file {a.output!r} already exists")
    runs = []
    with open(a.truth or os.devnull, "w") as out:
        if a.loops is None:
            runs.append(spawn_worker(a, -1, True, None))
            a.loops = runs[-1]["metadata"]["calibrate_loops"]
        for k in range(a.processes):
            runs.append(spawn_worker(a, k, False, out if a.truth else None))
    for r in runs:
        del r["metadata"]["nw_inner_hog_ns"]
    if a.output:
        dump(a.output, [runs])
    elif a.append:
        benchmarks = load(a.append) if os.path.exists(a.append) else []
        for b in benchmarks:
            if b[0]["metadata"]["name"] == a.name:
                b.extend(runs)
                break
        else:
            benchmarks.append(runs)
        dump(a.append, benchmarks)


def arguments():
    p = argparse.ArgumentParser()
    p.add_argument("-p", "--processes", type=int, default=20)
    p.add_argument("-n", "--values", type=int, default=3)
    p.add_argument("-w", "--warmups", type=int, default=1)
    p.add_argument("-l", "--loops", type=int)
    p.add_argument("--min-time", type=float, default=0.1)
    p.add_argument("--name", default="nw_pyperf_like")
    p.add_argument("-o", "--output")
    p.add_argument("--append")
    p.add_argument("--truth")
    p.add_argument("--worker", action="store_true")
    p.add_argument("--pipe", type=int)
    p.add_argument("--worker-task", type=int)
    p.add_argument("--calibrate-loops", action="store_true")
    p.add_argument("legacy", nargs="*", help="WORKERS UNITS TRUTHFILE")
    a = p.parse_args()
    if a.legacy:
        workers, units, truth = a.legacy
        a.processes, a.loops, a.truth, a.values, a.warmups = int(workers), int(units) * 100, truth, 1, 0
    return a


if __name__ == "__main__":
    args = arguments()
    if args.worker:
        worker(args)
    else:
        master(args)
