"""The largest batch (at a length) and the largest length (at a batch) whose training peak fits a budget.

Issue 32: "the largest B whose training peak ≤ budget bytes, L and options fixed; and the largest L for a
given B". The peak comes from :mod:`.peak`, which proves a lower and an upper bound on it (equal where it gives
the figure): B is proven to fit when the upper bound is within the budget, proven not to fit when the lower
bound exceeds it. ``max_batch_at_least`` is the largest B proven to fit, ``batch_does_not_fit`` the smallest
proven not to; ``max_batch`` is given only when they are adjacent (or B reaches its bound), else None. The peak never decreases as B or L
grows (every tensor of the step only grows), so each search looks for the edge of a prefix, guided by the
peak's own values (regula falsi), with doubling and bisection as its safe steps. Standard library only.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable

from ..errors import CalcError
from .step import MAX_BATCH, MAX_SEQ_LEN, Settings, compute

GIB = 2**30


def budget_bytes(value: Any) -> int:
    """``--fit-gib X``: X·2^30 bytes rounded down; X a number > 0 (``peak_budget`` otherwise)."""
    try:
        x = float(str(value).strip())
    except ValueError:
        raise CalcError("peak_budget", value=value) from None
    if not math.isfinite(x) or x <= 0 or x > 10**9:
        raise CalcError("peak_budget", value=value)
    n = math.floor(x * GIB)
    if n <= 0:
        raise CalcError("peak_budget", value=value)
    return n


def _largest(ok: Callable[[int], bool], limit: int, value: Callable[[int], int | None] | None = None,
             target: int = 0) -> int:
    """The largest n in [0, limit] with ok(1..n) all true (``ok`` true on a prefix).

    Each ``ok`` is a whole step of the engine, so the search asks it as few times as it can. ``value`` (optional)
    is the quantity ``ok`` compares with ``target``, growing with n (the peak's bound: flat while the weights
    decide it, then near-linear in B and a low polynomial in L). Until some n is known not to fit, the next n is
    where the line through the last two values meets the target, between twice and eight times the largest n
    that fits; then regula falsi inside the bracket, with the Illinois rule (a side kept twice has its value
    halved, so a convex curve cannot hold the search on one side), and a bisection whenever three steps have not
    halved the bracket, so the worst case stays logarithmic. Without ``value``: doubling, then bisection. Any of
    these finds the same n; the guided one asks 2-3 times fewer on the page's searches."""
    if not ok(1):
        return 0
    lo, hi = 1, limit + 1  # ok(lo); not ok(hi), or hi beyond the limit (``topped``: not asked yet)
    topped = False
    points: dict[int, int] = {}  # n -> value, where known
    weight = {"lo": 1.0, "hi": 1.0}  # Illinois: a side's value is halved while the other side keeps moving
    moved: list[str] = []  # which side each step moved
    slow = 0  # steps in a row that did not halve the bracket

    def note(n: int) -> None:
        if value is not None:
            v = value(n)
            if v is not None:
                points[n] = v

    def ask(n: int) -> None:
        nonlocal lo, hi, topped
        note(n)
        if ok(n):
            lo = n
            moved.append("lo")
        else:
            hi, topped = n, True
            moved.append("hi")

    def guess() -> int | None:
        """The next n the values point to, strictly inside the bracket, or None (no line to draw)."""
        if value is None or lo not in points:
            return None
        if topped:
            if hi not in points:
                return None
            below, above = (points[lo] - target) * weight["lo"], (points[hi] - target) * weight["hi"]
            if above <= below:
                return None
            x = lo + int(-below * (hi - lo) // (above - below))
        else:
            earlier = [n for n in points if n < lo and points[n] < points[lo]]
            if not earlier:
                return None
            a = max(earlier)
            slope = (points[lo] - points[a]) / (lo - a)
            x = lo + int((target - points[lo]) // slope)
            x = min(max(x, 2 * lo), 8 * lo, limit)
        return min(max(x, lo + 1), hi - 1)

    note(1)
    while hi - lo > 1 and not (lo >= limit and not topped):
        width = hi - lo
        n = guess() if slow < 3 else None
        if n is None:  # a safe step: doubling while nothing is known not to fit, else bisection
            n = min(lo * 2, limit) if not topped and lo * 2 < hi else (lo + hi) // 2
        ask(n)
        if len(moved) > 1 and moved[-1] == moved[-2]:
            weight["hi" if moved[-1] == "lo" else "lo"] /= 2  # the side that stayed, halved again
        else:
            weight[moved[-1]] = 1.0
        if topped:
            slow = 0 if hi - lo <= width // 2 else slow + 1
    return lo


def _search(bounds: Callable[[int], tuple[int, int | None] | None], budget: int,
            limit: int) -> tuple[int | None, int, int | None]:
    """(the exact largest n ≤ limit whose peak fits, or None; the largest n proven to fit; the smallest n proven
    not to fit, or None). ``bounds(n)``: (lower, upper) of the peak at n, None where the step is refused."""

    def fits(n: int) -> bool:  # proven: even the upper bound is within the budget
        b = bounds(n)
        return b is not None and b[1] is not None and b[1] <= budget

    def may_fit(n: int) -> bool:  # not proven not to fit: the lower bound is within the budget
        b = bounds(n)
        return b is not None and b[0] <= budget

    def upper(n: int) -> int | None:
        b = bounds(n)
        return None if b is None else b[1]

    def lower(n: int) -> int | None:
        b = bounds(n)
        return None if b is None else b[0]

    proven = _largest(fits, limit, upper, budget)
    possible = _largest(may_fit, limit, lower, budget)
    beyond = None if possible >= limit or bounds(possible + 1) is None else possible + 1
    exact = proven if proven == possible and (beyond is not None or possible >= limit) else None
    return exact, proven, beyond


def fit(inv: Any, s: Settings, plan: Any, budget: int, weights: int) -> dict[str, Any]:
    """``costs.fit``: the budget in bytes, the largest batch at ``s.seq_len`` and the largest length at
    ``s.batch`` (exact, or ``*_at_least`` where the peak above is not modelled yet)."""
    if budget < weights:
        raise CalcError("peak_budget_below_weights", budget=f"{budget:,}", weights=f"{weights:,}")

    cache: dict[tuple[int, int], tuple[int, int | None] | None] = {}

    def bounds(settings: Settings) -> tuple[int, int | None] | None:
        key = (settings.batch, settings.seq_len)
        if key not in cache:
            try:
                p = compute(inv, settings, plan).peak
                cache[key] = None if p is None or not p.lower else (p.lower, p.upper)
            except CalcError:
                cache[key] = None  # too long for the positions, too large a figure: refused
        return cache[key]

    longest = MAX_SEQ_LEN
    model = getattr(inv.family, "costs", None)
    if model is not None and model.max_seq_len is not None:
        longest = model.max_seq_len(inv.config) or MAX_SEQ_LEN
    batch, batch_min, batch_over = _search(lambda b: bounds(replace(s, batch=b)), budget, MAX_BATCH - 1)
    length, length_min, length_over = _search(lambda n: bounds(replace(s, seq_len=n)), budget,
                                              min(longest, MAX_SEQ_LEN))
    return {"budget": budget,
            "seq_len": s.seq_len, "max_batch": batch, "max_batch_at_least": batch_min, "batch_does_not_fit": batch_over,
            "batch": s.batch, "max_seq_len": length, "max_seq_len_at_least": length_min,
            "seq_len_does_not_fit": length_over}
