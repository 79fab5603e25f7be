"""The largest batch (at a length) and the largest length (at a batch) whose training peak fits a budget.

Issue 32: "the largest B whose training peak ≤ budget bytes, L and options fixed; and the largest L for a
given B". The peak comes from :mod:`.peak`, which proves a lower and an upper bound on it (equal where it gives
the figure): B is proven to fit when the upper bound is within the budget, proven not to fit when the lower
bound exceeds it. ``max_batch_at_least`` is the largest B proven to fit, ``batch_does_not_fit`` the smallest
proven not to; ``max_batch`` is given only when they are adjacent (or B reaches its bound), else None. The peak never decreases as B or L
grows (every tensor of the step only grows), so each search is a doubling then a bisection over the
engine. Standard library only.
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


def _largest(ok: Callable[[int], bool], limit: int) -> int:
    """The largest n in [0, limit] with ok(1..n) all true (``ok`` true on a prefix): doubling, then bisection."""
    if not ok(1):
        return 0
    lo, hi = 1, 2
    while hi <= limit and ok(hi):
        lo, hi = hi, hi * 2
    hi = min(hi, limit + 1)
    while hi - lo > 1:  # ok(lo), not ok(hi) (or hi beyond the limit)
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
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

    proven = _largest(fits, limit)
    possible = _largest(may_fit, limit)
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
