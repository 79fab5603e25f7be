"""Parameters stored versus parameters used per token, when only some feed-forward neurons fire.

Fast feed-forward networks (UltraFastBERT: 12 of 4,095 neurons per layer)
evaluate a small part of each feed-forward layer per token. Nothing is removed
from the model: the stored count is unchanged. What shrinks is the part a
single token touches: an active intermediate neuron uses its row of the first
weight, its bias, and its column of the second weight; the output bias is used
whatever fires. Everything outside the feed-forward layers counts as used, the
convention mixture-of-experts papers follow for "active parameters" (a token
strictly reads only its own row of each embedding table).

Works on any :class:`~calculator.model.Inventory` from its tensors whose group is
``feed_forward``; the config is not consulted.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .errors import CalcError
from .model import Inventory, Tensor


@dataclass(frozen=True)
class ActiveParameters:
    """The answer to "does a sparse feed-forward layer halve BERT?"."""

    #: Share of intermediate neurons active per token, 0..1.
    fraction: float
    #: ``inv.total``: what the model stores, sparse or not.
    stored: int
    #: Feed-forward weights and biases (all of them).
    feed_forward: int
    #: ``feed_forward / stored``.
    feed_forward_share: float
    #: Feed-forward parameters one token uses: fraction × (first weight, its bias, second weight) + output biases.
    feed_forward_active: float
    #: Parameters one token uses in the whole model.
    active: float
    #: ``active / stored``.
    active_share: float

    @property
    def not_used(self) -> float:
        """Stored parameters a token does not touch (still stored, still loaded)."""
        return self.stored - self.active


#: A share written as text: a decimal with an optional exponent, or a ratio of whole numbers.
#: Checked before ``Fraction()`` sees it, which would compute 10**100000000 for ``1e-100000000``.
_FRACTION_TEXT = r"\s*(?:[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|\d+\s*/\s*\d+)\s*"
#: Longest text and largest exponent accepted: a share in [0, 1] needs neither more digits
#: than a float holds nor an exponent beyond a few dozen.
MAX_FRACTION_CHARS = 64
MAX_FRACTION_EXPONENT = 64


def _bounded_text(text: str) -> bool:
    """Whether ``text`` is a share ``Fraction()`` reads at once (short, small exponent)."""
    import re

    if len(text) > MAX_FRACTION_CHARS or not re.fullmatch(_FRACTION_TEXT, text):
        return False
    exponent = re.search(r"[eE]([+-]?\d+)", text)
    return exponent is None or abs(int(exponent.group(1))) <= MAX_FRACTION_EXPONENT


def parse_fraction(value: Any, key: str = "fraction", name: dict[str, str] | None = None) -> Fraction:
    """A number in [0, 1], a string such as ``"0.25"`` or ``"12/4095"``, or a pair (active, neurons).

    ``name`` is the field's label in each language, for the message (``key`` stays the code's field).
    A string is checked for length and exponent before it is parsed (:func:`_bounded_text`).
    """
    named: dict[str, Any] = {"name": name} if name else {}
    try:
        if isinstance(value, bool):
            raise TypeError
        if isinstance(value, (tuple, list)):
            if len(value) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise TypeError
            result = Fraction(value[0], value[1])
            if value[0] < 0:
                raise ValueError
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError
            result = Fraction(value)
        elif isinstance(value, (int, Fraction)):
            result = Fraction(value)
        elif isinstance(value, str):
            if not _bounded_text(value):
                raise ValueError
            result = Fraction(value.strip())
        else:
            raise TypeError
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        raise CalcError("bad_fraction", key=key, value=value, **named) from None
    if not 0 <= result <= 1:
        raise CalcError("bad_fraction", key=key, value=value, **named)
    return result


def feed_forward_blocks(inv: Inventory) -> list[list[Tensor]]:
    """The feed-forward tensors of each layer: consecutive runs in ``state_dict`` order (tied copies left out)."""
    blocks: list[list[Tensor]] = []
    previous: Tensor | None = None
    for t in inv.tensors:
        if t.tied_to is not None:
            continue
        if t.group == "feed_forward":
            if previous is None or previous.group != "feed_forward" or previous.layer != t.layer:
                blocks.append([])
            blocks[-1].append(t)
        previous = t
    return blocks


def _always_used(block: list[Tensor]) -> int:
    """The output bias: the last 1-D tensor of a block that has one per projection (two or more)."""
    biases = [t for t in block if len(t.shape) == 1]
    return biases[-1].count if len(biases) >= 2 else 0


def active_parameters(inv: Inventory, fraction: Any) -> ActiveParameters:
    """Stored and per-token parameter counts when ``fraction`` of the feed-forward neurons fire."""
    share = parse_fraction(fraction)
    stored = inv.total
    ff_total = 0
    ff_active = Fraction(0)
    for block in feed_forward_blocks(inv):
        n = sum(t.count for t in block)
        fixed = _always_used(block)
        ff_total += n
        ff_active += share * (n - fixed) + fixed
    active = stored - ff_total + ff_active
    return ActiveParameters(
        fraction=float(share),
        stored=stored,
        feed_forward=ff_total,
        feed_forward_share=ff_total / stored if stored else 0.0,
        feed_forward_active=float(ff_active),
        active=float(active),
        active_share=float(active / stored) if stored else 0.0,
    )
