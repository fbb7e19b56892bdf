#!/usr/bin/env python3
"""Writes the sample inputs of the compare tests. Deterministic (fixed seeds): rerun after
changing it and review the diff; goldens under golden/ then need regenerating (see the test)."""
import gzip
import json
import random

HERE = __file__.rsplit("/", 1)[0] or "."


def dump(name, obj):
    with open(f"{HERE}/{name}", "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def nw_report(seed, runs, base_ms, cv, hog_ms=0.0, kernel="6.18.0-nw", cpus=(1,), hog_cpu_share=None):
    """A noisewatch.run/1 report: one warm-up, `runs` measured repetitions; every run has timer
    ticks and softirqs; `hog_ms` adds a preempting stress-ng of about that many ms per run."""
    rnd = random.Random(seed)
    out = []
    for i in range(runs + 1):
        timer_count = rnd.randint(45, 55)
        timer_ns = timer_count * rnd.randint(900, 1100)
        softirq_ns = rnd.randint(20_000, 40_000)
        noise = [
            {"source": "irq:local_timer", "count": timer_count, "time_ns": timer_ns, "max_ns": 2500},
            {"source": "softirq:TIMER", "count": timer_count // 2, "time_ns": softirq_ns, "max_ns": 4000},
        ]
        if rnd.random() < 0.3:
            noise.append({"source": "preemption:kworker/1:1", "count": 1, "time_ns": rnd.randint(5_000, 15_000),
                          "max_ns": 15_000})
        hog = 0
        if hog_ms > 0:
            hog = int(rnd.gauss(hog_ms, hog_ms * 0.1) * 1e6)
            noise.append({"source": "preemption:stress-ng", "count": hog // 4_000_000 + 1, "time_ns": hog,
                          "max_ns": 4_000_000})
        work = rnd.gauss(base_ms, base_ms * cv) * 1e6
        wall = int(work + sum(n["time_ns"] for n in noise))
        out.append({"index": i, "warmup": i == 0, "wall_ns": wall, "user_ns": int(work), "sys_ns": 0,
                    "exit_status": 0, "signal": None, "migrations": 0, "voluntary_switches": 0,
                    "involuntary_switches": sum(n["count"] for n in noise if n["source"].startswith("preemption")),
                    "minor_faults": 120, "major_faults": 0, "steal_ns": 0, "noise": noise})
    return {"schema": "noisewatch.run/1", "version": "0.1.0", "command": ["./build/arraysum", "--size", "1M"],
            "cpus": list(cpus), "pinned": True,
            "host": {"hostname": "bench1", "kernel": kernel, "cpu_model": "QEMU Virtual CPU version 2.5+",
                     "virtualized": True, "online_cpus": 2},
            "runs": out, "summary": {}, "attribution": [], "recommendations": [], "unavailable": [],
            "lost_events": 0}


def gbench(seed, families, reps=10):
    """Google Benchmark JSON with repetitions and the aggregate rows it appends to them."""
    rnd = random.Random(seed)
    rows = []
    for fi, (name, unit, centre, cv) in enumerate(families):
        values = [rnd.gauss(centre, centre * cv) for _ in range(reps)]
        for r, v in enumerate(values):
            rows.append({"name": name, "family_index": fi, "per_family_instance_index": 0, "run_name": name,
                         "run_type": "iteration", "repetitions": reps, "repetition_index": r, "threads": 1,
                         "iterations": 1000, "real_time": v, "cpu_time": v * 0.99, "time_unit": unit})
        mean = sum(values) / reps
        for agg in ("mean", "median", "stddev", "cv"):
            rows.append({"name": f"{name}_{agg}", "family_index": fi, "per_family_instance_index": 0,
                         "run_name": name, "run_type": "aggregate", "repetitions": reps, "threads": 1,
                         "aggregate_name": agg, "aggregate_unit": "percentage" if agg == "cv" else "time",
                         "iterations": reps, "real_time": mean, "cpu_time": mean, "time_unit": unit})
    return {"context": {"date": "2026-11-30T09:00:00+00:00", "host_name": "bench1", "executable": "./bench",
                        "num_cpus": 2, "mhz_per_cpu": 2400, "cpu_scaling_enabled": False,
                        "caches": [], "load_avg": [0.1, 0.1, 0.1], "library_build_type": "release"},
            "benchmarks": rows}


def hyperfine(seed, commands):
    rnd = random.Random(seed)
    results = []
    for cmd, centre, cv, n in commands:
        times = [rnd.gauss(centre, centre * cv) for _ in range(n)]
        mean = sum(times) / n
        results.append({"command": cmd, "mean": mean, "stddev": centre * cv, "median": sorted(times)[n // 2],
                        "user": mean * 0.9, "system": mean * 0.05, "min": min(times), "max": max(times),
                        "times": times, "exit_codes": [0] * n})
    return {"results": results}


def pyperf(seed, name, centre, cv, processes=6, values_per_process=3):
    rnd = random.Random(seed)
    runs = [{"metadata": {"calibrate_loops": 1024}, "warmups": [[1, centre * 1.3], [2, centre * 1.1]]}]
    for _ in range(processes):
        runs.append({"metadata": {"date": "2026-11-30 09:00:00"}, "warmups": [[1024, centre * 1.05]],
                     "values": [rnd.gauss(centre, centre * cv) for _ in range(values_per_process)]})
    return {"version": "1.0", "metadata": {"loops": 1024, "unit": "second", "python_version": "3.11.2"},
            "benchmarks": [{"metadata": {"name": name}, "runs": runs}]}


dump("nw_base.json", nw_report(1, 12, 50.0, 0.004))
dump("nw_new_noisy.json", nw_report(2, 12, 50.0, 0.004, hog_ms=2.0))
dump("nw_new_slow_code.json", nw_report(3, 12, 51.5, 0.004))
dump("nw_new_other_kernel.json", nw_report(4, 12, 50.0, 0.004, kernel="6.1.0-26-amd64", cpus=(0,)))
dump("nw_few_base.json", nw_report(5, 5, 50.0, 0.004))
dump("nw_few_new.json", nw_report(6, 5, 50.0, 0.004))
dump("gbench_base.json", gbench(7, [("BM_Sum/1024", "ns", 850.0, 0.01), ("BM_Sort/4096", "us", 120.0, 0.01),
                                    ("BM_Only_Base", "ns", 10.0, 0.01)]))
dump("gbench_new.json", gbench(8, [("BM_Sum/1024", "ns", 851.0, 0.01), ("BM_Sort/4096", "us", 126.0, 0.01)]))
dump("gbench_other_names.json", gbench(9, [("BM_Renamed", "ns", 850.0, 0.01)]))
dump("hyperfine_base.json", hyperfine(10, [("./bench --n 1000", 0.0200, 0.01, 12)]))
dump("hyperfine_new.json", hyperfine(11, [("./bench --n 1000", 0.0190, 0.01, 12)]))
dump("pyperf_base.json", pyperf(12, "json_dumps", 1.5e-5, 0.01))
dump("pyperf_new.json", pyperf(13, "json_dumps", 1.5e-5, 0.01))



def gbench_old(seed, families, reps=5):
    """Google Benchmark JSON as versions before 1.5 wrote it: no run_type, run_name or
    aggregate_name; aggregates are only recognisable by their _mean/_median/_stddev names."""
    rnd = random.Random(seed)
    rows = []
    for name, centre, cv, with_aggregates in families:
        values = [rnd.gauss(centre, centre * cv) for _ in range(reps)]
        rows += [{"name": name, "iterations": 1000, "real_time": v, "cpu_time": v, "time_unit": "ns"} for v in values]
        if with_aggregates:
            mean = sum(values) / reps
            for agg in ("mean", "median", "stddev"):
                rows.append({"name": f"{name}_{agg}", "iterations": 1000, "real_time": mean, "cpu_time": mean,
                             "time_unit": "ns"})
    return {"context": {"date": "2018-05-01 10:00:00", "num_cpus": 8, "mhz_per_cpu": 3600,
                        "cpu_scaling_enabled": False, "library_build_type": "release"}, "benchmarks": rows}


def gbench_skips(seed):
    """Rows that google/benchmark >= 1.8 writes for State::SkipWithMessage ("skipped") and
    SkipWithError ("error_occurred"), next to a benchmark that ran."""
    doc = gbench(seed, [("BM_Ran", "ns", 100.0, 0.01)], reps=5)
    doc["benchmarks"] += [
        {"name": "BM_NeedsAvx512", "family_index": 1, "per_family_instance_index": 0, "run_name": "BM_NeedsAvx512",
         "run_type": "iteration", "repetitions": 5, "repetition_index": r, "threads": 1, "skipped": True,
         "skip_message": "no AVX-512 on this CPU", "iterations": 0, "real_time": 0, "cpu_time": 0,
         "time_unit": "ns"} for r in range(5)]
    doc["benchmarks"].append(
        {"name": "BM_Broken", "family_index": 2, "per_family_instance_index": 0, "run_name": "BM_Broken",
         "run_type": "iteration", "repetitions": 5, "repetition_index": 0, "threads": 1, "error_occurred": True,
         "error_message": "checksum mismatch", "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "ns"})
    return doc


def other_host(path):
    """A real Google Benchmark file with its context edited to another machine (release build)."""
    with open(f"{HERE}/{path}") as f:
        doc = json.load(f)  # keeps the NaN/Infinity counters as Python floats; dump writes them back
    doc["context"].update({"host_name": "ci-runner-7", "num_cpus": 16, "mhz_per_cpu": 3400,
                           "cpu_scaling_enabled": True, "library_build_type": "release",
                           "caches": [{"type": "Data", "level": 1, "size": 32768, "num_sharing": 2},
                                      {"type": "Unified", "level": 2, "size": 1048576, "num_sharing": 2}]})
    return doc


dump("gbench_old_base.json", gbench_old(17, [("BM_Sort", 1000.0, 0.01, True), ("BM_Alloc_mean", 50.0, 0.01, False)]))
dump("gbench_old_new.json", gbench_old(18, [("BM_Sort", 1100.0, 0.01, True), ("BM_Alloc_mean", 50.0, 0.01, False)]))
dump("gbench_skips.json", gbench_skips(19))
dump("gbench_reps_new_other_host.json", other_host("real/gbench_reps_new.json"))

# Broken inputs: each must give a one-line nw::Error, never a crash.
dump("broken/only_warmup.json", {**nw_report(14, 0, 50.0, 0.004)})
dump("broken/unknown_shape.json", {"results_of": [1, 2, 3], "name": "x"})
dump("broken/compare_report.json", {"schema": "noisewatch.compare/1", "verdict": "slower"})
dump("broken/gbench_bad_unit.json", gbench(15, [("BM_X", "fortnights", 1.0, 0.01)]))
dump("broken/gbench_only_aggregates.json",
     {"context": {}, "benchmarks": [r for r in gbench(16, [("BM_X", "ns", 5.0, 0.01)])["benchmarks"]
                                    if r["run_type"] == "aggregate"]})
dump("broken/hyperfine_no_times.json", {"results": [{"command": "sleep 1", "mean": 1.0}]})
dump("broken/hyperfine_negative_time.json", {"results": [{"command": "x", "times": [0.1, -0.2]}]})
dump("broken/pyperf_bytes.json", {"version": "1.0", "metadata": {"unit": "byte"},
                                  "benchmarks": [{"metadata": {"name": "mem"}, "runs": [{"values": [100]}]}]})
dump("broken/pyperf_calibration_only.json", {"version": "1.0", "benchmarks": [
    {"metadata": {"name": "b"}, "runs": [{"warmups": [[1, 0.1]]}]}]})
dump("broken/nw_wall_is_string.json", {"schema": "noisewatch.run/1", "runs": [{"wall_ns": "fast"}]})
dump("broken/hyperfine_duplicate.json", {"results": [{"command": "x", "times": [0.1]},
                                                     {"command": "x", "times": [0.2]}]})
with open(f"{HERE}/broken/not_json.json", "w") as f:
    f.write('{"schema": "noisewatch.run/1", "runs": [\n')
with open(f"{HERE}/broken/empty.json", "w") as f:
    pass
with open(f"{HERE}/broken/whitespace.json", "w") as f:
    f.write("  \n\n")
with open(f"{HERE}/hyperfine_base.json", encoding="utf-8") as f:
    hyperfine_text = f.read()
with open(f"{HERE}/broken/utf16.json", "w", encoding="utf-16") as f:  # with a BOM, as PowerShell writes
    f.write(hyperfine_text)
compressed = gzip.compress(hyperfine_text.encode(), mtime=0)
with open(f"{HERE}/broken/truncated.json.gz", "wb") as f:
    f.write(compressed[: len(compressed) // 2])
