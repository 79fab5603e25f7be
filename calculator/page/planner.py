"""The page's fine-tuning planner: LoRA (as peft applies it) or freezing, from the address's keys.

The keys are the CLI's options with underscores (``lora_r``, ``lora_targets``,
``lora_bias``, ``peft_task_type``, ``modules_to_save``; ``freeze``, ``freeze_layers``),
declared once in :mod:`calculator.options`, so a share link and a command line say the
same thing. The planner is on when
``lora_r`` is given (LoRA) or ``freeze`` / ``freeze_layers`` is (freezing).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from .. import options
from ..errors import CalcError
from ..model import Inventory
from ..options import FREEZE_KEYS, LORA_KEYS, PLANNER_KEYS

if TYPE_CHECKING:
    from .. import peft

#: What the freeze menu offers besides the first K layers.
FREEZE_CHOICES: tuple[str, ...] = tuple(c.value for c in options.FREEZE.choices)


def planner_query(params: Mapping[str, Any]) -> dict[str, str]:
    """The planner's keys that carry a value, as text."""
    out: dict[str, str] = {}
    for key in PLANNER_KEYS:
        value = params.get(key)
        if value is None:
            continue
        text = str(value).strip()
        if text:
            out[key] = text
    return out


def plan_of(params: Mapping[str, Any], inv: Inventory) -> tuple[dict[str, str], peft.Plan | None]:
    """(the planner's canonical query, the plan or None) for query-style parameters."""
    q = planner_query(params)
    if q.get("lora_bias") == options.LORA_BIAS.default:
        q.pop("lora_bias")  # peft's default: not worth a key in the link
    lora_on = "lora_r" in q
    freeze_on = any(k in q for k in FREEZE_KEYS)
    if lora_on and freeze_on:
        raise CalcError("plan_conflict", fields=(options.LORA_R.key, options.FREEZE.key))
    if lora_on or freeze_on:
        from .. import peft  # a plan only: the page's default answer has none, and peft's dataclasses wait (issue 31)
    if lora_on:
        plan = peft.lora_from_text(inv, q["lora_r"], q.get("lora_targets"), q.get("lora_bias"), q.get("peft_task_type"),
                                   q.get("modules_to_save"))
        return {k: v for k, v in q.items() if k in LORA_KEYS}, plan
    if freeze_on:
        choice = q.get("freeze", "")
        if choice not in FREEZE_CHOICES:
            raise CalcError("bad_value", key="freeze", value=choice)
        plan = peft.freeze(inv, embeddings=choice == "embeddings", layers=q.get("freeze_layers", "0"),
                           all_but_head=choice == "all_but_head")
        return {k: v for k, v in q.items() if k in FREEZE_KEYS}, plan
    return {}, None
