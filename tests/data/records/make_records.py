#!/usr/bin/env python3
"""Writes the synthetic run records used by the report tests (deterministic: fixed seed).

hog_alternate.json  10 runs (+1 warm-up) of a 250 ms benchmark on CPU 1 of a 2-CPU VM; a
                    stress-ng process preempts it for ~6.5 ms in every other run; a timer
                    tick, a virtio IRQ (IRQ 24), softirqs, a few migrations and page faults.
few_runs.json       the same machine, 3 runs: too few to attribute.
"""
import json
import random

rng = random.Random(7)


def run(index, warmup, hog):
    base = 250_000_000 + rng.gauss(0, 150_000)
    noise = []
    tick = 250 * 1_100 + rng.randint(-2_000, 2_000)
    noise.append({"source": "irq:local_timer", "count": 250, "time_ns": tick, "max_ns": 4_100})
    timer = 40 * 2_500 + rng.randint(-5_000, 5_000)
    noise.append({"source": "softirq:TIMER", "count": 40, "time_ns": timer, "max_ns": 9_800})
    virtio = rng.randint(2, 30)
    noise.append({"source": "irq:virtio1-req.0", "count": virtio, "time_ns": virtio * 3_000,
                  "max_ns": 7_500, "detail": {"irq": 24}})
    if hog:
        t = 6_500_000 + rng.randint(-300_000, 300_000)
        noise.append({"source": "preemption:stress-ng", "count": 65, "time_ns": t, "max_ns": 1_000_000,
                      "detail": {"pid": 4242}})
    kw = rng.randint(10_000, 40_000)
    noise.append({"source": "preemption:kworker/1:2", "count": 3, "time_ns": kw, "max_ns": 15_000,
                  "detail": {"pid": 77}})
    migrations = rng.randint(0, 1)
    if migrations:
        noise.append({"source": "migration", "count": migrations, "time_ns": 0, "max_ns": 0,
                      "detail": {"from": 1, "to": 0}})
    noise.append({"source": "fault", "count": 310 + rng.randint(0, 4), "time_ns": 0, "max_ns": 0})
    stolen = sum(n["time_ns"] for n in noise)
    wall = int(base + stolen)
    return {"index": index, "warmup": warmup, "wall_ns": wall, "user_ns": int(base) - 600_000,
            "sys_ns": 600_000, "exit_status": 0, "signal": None, "migrations": migrations,
            "voluntary_switches": 1, "involuntary_switches": 65 if hog else 3,
            "minor_faults": 310, "major_faults": 0, "steal_ns": 0, "blocking_ns": 0, "noise": noise,
            "counters": {"task-clock": {"value": float(int(base)), "raw": int(base), "scaling": 1.0}}}


def record(runs):
    return {"schema": "noisewatch.run/1", "version": "test", "command": ["./bench", "--size", "64M"],
            "cpus": [1], "pinned": True, "cpu_reason": "CPU 1 had the fewest interrupts",
            "host": {"hostname": "vm", "kernel": "6.18.0", "cpu_model": "QEMU Virtual CPU",
                     "virtualized": True, "online_cpus": 2},
            "runs": runs, "unavailable": [{"probe": "frequency", "reason": "no cpufreq driver"}],
            "warnings": [], "lost_events": 0}


hog = [run(0, True, False)] + [run(i, False, i % 2 == 0) for i in range(1, 11)]
with open("hog_alternate.json", "w") as f:
    json.dump(record(hog), f, indent=1)
    f.write("\n")
few = [run(i, False, i == 1) for i in range(3)]
with open("few_runs.json", "w") as f:
    json.dump(record(few), f, indent=1)
    f.write("\n")
