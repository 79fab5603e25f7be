"""Where the suite's minutes go: its wall time, how busy the machine was, and each test file's share.

    .venv/bin/python benchmarks/suite_time.py                 # the whole suite, as `make test` runs it
    .venv/bin/python benchmarks/suite_time.py tests/browser   # any pytest arguments: a part of it

It runs pytest on every core (``-n auto --dist worksteal``, as the Makefile) with
this file loaded as a plugin in each worker, which writes when each test started
and ended; meanwhile the controller reads the machine's CPU counters
(``/proc/stat``) once a second. Printed:

- the run's wall time and how busy the machine's cores were over it. Near 100 %
  means the suite is bound by CPU, so only less work makes it faster, not more
  workers or fewer waits. The CPU a test spends in Chromium or Node is not
  counted in pytest's process (``time``'s "user" misses most of it); the
  machine's counters see all of it;
- each test file's wall time summed over its tests, and its share of the sum:
  on a busy machine that share is its share of the CPU too;
- the longest tests.

Linux only (``/proc/stat``). Figures: ``benchmarks/README.md``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

#: Where the workers and the sampler write (set by :func:`main` for the pytest it starts).
OUT_ENV = "SUITE_TIME_DIR"
ROOT = Path(__file__).resolve().parents[1]
#: Test files listed one by one (the rest on one line).
SHOWN = 25


# --- the plugin: loaded in the controller and in every xdist worker (``-p suite_time``) ---

def _out(name: str):
    return open(Path(os.environ[OUT_ENV]) / name, "a", buffering=1, encoding="utf-8")


try:
    import pytest
except ImportError:  # run as a script without pytest importable: only main() is used
    pytest = None

if pytest is not None and os.environ.get(OUT_ENV):
    _WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
    _TESTS = None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        """Each test's start and end, setup and teardown included."""
        global _TESTS
        start = time.time()
        yield
        if _TESTS is None:
            _TESTS = _out(f"tests-{_WORKER}.jsonl")
        _TESTS.write(json.dumps({"id": item.nodeid, "start": start, "end": time.time()}) + "\n")

    def _sample() -> None:
        with _out("cpu.jsonl") as out:
            while True:
                with open("/proc/stat", encoding="ascii") as stat:
                    fields = [int(v) for v in stat.readline().split()[1:]]
                # user nice system idle iowait irq softirq steal ...: busy is everything but
                # idle and iowait; steal (the hypervisor ran another machine) is said apart.
                out.write(json.dumps({"t": time.time(), "total": sum(fields), "idle": fields[3] + fields[4],
                                      "steal": fields[7] if len(fields) > 7 else 0}) + "\n")
                time.sleep(1.0)

    def pytest_configure(config):
        if _WORKER == "main":
            threading.Thread(target=_sample, daemon=True).start()


# --- the script ---

def _read(directory: Path) -> tuple[list[dict], list[dict]]:
    tests = []
    for path in sorted(directory.glob("tests-*.jsonl")):
        tests += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    samples = [json.loads(line) for line in (directory / "cpu.jsonl").read_text(encoding="utf-8").splitlines()]
    return tests, samples


def _share(samples: list[dict], key: str) -> float:
    """The share of the cores' time counted under ``key`` between the first and the last sample."""
    total = samples[-1]["total"] - samples[0]["total"]
    return (samples[-1][key] - samples[0][key]) / total if total else 0.0


def _busy(samples: list[dict]) -> float:
    """The share of the cores' time spent working (not idle, not waiting on the disk)."""
    return 1 - _share(samples, "idle")


def report(tests: list[dict], samples: list[dict], wall: float) -> str:
    by_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    by_suite: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for test in tests:
        path = test["id"].split("::")[0]
        for entry in (by_file[path], by_suite[path.rpartition("/")[0]]):
            entry[0] += test["end"] - test["start"]
            entry[1] += 1
    summed = sum(seconds for seconds, _ in by_file.values()) or 1.0
    cores = os.cpu_count() or 1
    lines = [
        f"pytest: {wall:.0f} s wall, {len(tests)} tests, {cores} cores "
        f"{100 * _busy(samples):.0f} % busy over the run "
        f"(~{_busy(samples) * cores * wall:.0f} core-seconds; stolen by the hypervisor: "
        f"{100 * _share(samples, 'steal'):.1f} %)",
    ]
    for title, table, shown in (("suite", by_suite, len(by_suite)), ("test file", by_file, SHOWN)):
        lines += ["", f"{title:62s} {'tests':>5s} {'wall, summed':>12s} {'share':>6s}"]
        ordered = sorted(table.items(), key=lambda kv: -kv[1][0])
        for name, (seconds, count) in ordered[:shown]:
            lines.append(f"{name:62s} {count:5d} {seconds:10.1f} s {100 * seconds / summed:5.1f} %")
        rest = ordered[shown:]
        if rest:
            seconds = sum(s for _, (s, _) in rest)
            lines.append(f"{f'{len(rest)} more files':62s} {sum(c for _, (_, c) in rest):5d} "
                         f"{seconds:10.1f} s {100 * seconds / summed:5.1f} %")
    lines += ["", "longest tests:"]
    for test in sorted(tests, key=lambda t: t["start"] - t["end"])[:15]:
        lines.append(f"{test['end'] - test['start']:7.1f} s  {test['id']}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if not Path("/proc/stat").exists():
        print("benchmarks/suite_time.py reads /proc/stat: Linux only", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="suite-time-") as directory:
        env = {**os.environ, OUT_ENV: directory,
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "benchmarks"), os.environ.get("PYTHONPATH")]))}
        command = [sys.executable, "-m", "pytest", "-n", "auto", "--dist", "worksteal", "-p", "suite_time", *argv]
        start = time.time()
        code = subprocess.run(command, cwd=ROOT, env=env).returncode
        wall = time.time() - start
        tests, samples = _read(Path(directory))
    print()
    print(report(tests, samples, wall))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
