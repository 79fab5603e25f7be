"""Work done once per test run, whichever pytest-xdist worker asks for it first.

``make test`` runs the suites on several workers, and a session fixture is per
process: an expensive one (the site build, the compiled Pyodide assets, the
unit suite run inside Pyodide) would be done once on every worker. Grouping the
tests that use it onto one worker is no cure here: pytest-xdist 3.8's
``--dist loadgroup`` renames node ids through an attribute pytest 9 no longer
reads, so its groups are silently ignored. Instead the first worker to ask does
the work under a file lock, in the run's common temporary directory, and writes
its JSON answer; the others wait on the lock and read that answer.

``start_early`` lets the pytest-xdist controller be that first one for a job it
knows the run will need (the site build), in a background thread, while the
workers collect and run the suites that need no build: the worker that needs
the answer first then waits for less, or not at all, instead of building while
the other worker sits idle on the lock.
"""
from __future__ import annotations

import fcntl
import json
import os
import threading
from pathlib import Path
from typing import Any, Callable


def run_dir(tmp_path_factory) -> Path:
    """This run's temporary directory, the same for every xdist worker."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_run(tmp_path_factory, name: str, make: Callable[[Path], Any]) -> Any:
    """``make(directory)``'s JSON-able answer, computed by one worker per run.

    ``directory`` (``<run>/<name>``, not yet created) is where ``make`` may
    write files that outlive it. If ``make`` raises, nothing is recorded, so
    every test that needs the answer fails with its own error.
    """
    run = run_dir(tmp_path_factory)
    record = run / f"{name}.json"
    with open(run / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held while one worker works; the others wait here
        if not record.exists():
            answer = make(run / name)
            record.write_text(json.dumps(answer), encoding="utf-8")
    return json.loads(record.read_text(encoding="utf-8"))


def start_early(run: Path, name: str, make: Callable[[Path], Any]) -> None:
    """Take ``name``'s lock now and compute ``make``'s answer in a background thread.

    ``run`` is the run's common directory (the controller's basetemp). The lock is
    taken before this returns, so a worker that asks later waits for this answer
    rather than starting its own; it is released once the answer is written (or
    ``make`` failed, in which case the first worker to ask tries again itself, and
    fails with its own error). Nothing is started if the answer is already there.
    """
    run.mkdir(parents=True, exist_ok=True)
    record = run / f"{name}.json"
    lock = open(run / f"{name}.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    if record.exists():
        lock.close()
        return

    def work() -> None:
        try:
            answer = make(run / name)
            record.write_text(json.dumps(answer), encoding="utf-8")
        finally:
            lock.close()  # releases the lock

    threading.Thread(target=work, name=f"once:{name}", daemon=True).start()
