"""The inference span (issue 32): ``model.eval()``, ``torch.no_grad()``, one forward, its outputs kept.

What it costs: the forward's FLOPs (``FlopCounterMode``'s count of that forward: the same products as the training
step's forward, so the family's program run without a graph gives them for every family with a step), and the peak
of live memory as :mod:`.peak` defines it: parameters, buffers and ``input_ids`` live from the start, every storage
the forward makes live from its operation until the model's Python drops its last name (nothing is saved for a
backward; dropout returns its input in eval mode), the outputs kept to the end.

**The peak.** Where the family's program declares every release (:meth:`~.ops.Ops.exact_forward`: BERT's,
ERNIE's, RoBERTa's and its clones', ELECTRA's, DistilBERT's, ALBERT's and DeBERTa-v2's classes among others, eager or SDPA, fp32 or bf16, with
or without autocast), :class:`~.lifetime.LiveSim` replays the
forward allocation by allocation (:func:`~.lifetime.replay_forward`) and the maximum is the peak, with the op
that reached it and what is live then. Elsewhere the peak is ``None`` (``peak_not_modelled``) with proven bounds:

* lower: the start (weights, buffers, ``input_ids``) and the outputs, live together at the span's end;
* upper: the start, every storage the program makes (as if none were ever freed), and three times the largest
  of them, for the temporaries inside a composite operation the program does not list (``native_layer_norm``'s
  mean and 1/std, the intermediate tensors of ``gelu_new``'s expression: at most three alive at once).

Both are held against PyTorch (``tests/crosscheck/test_inference_engine.py``). Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import CalcError
from ..model import Inventory
from .peak import Item, Peak, not_modelled
from .step import (AUTOCAST, DTYPES, MAX_FIGURE, Settings, _named_parameters, _numel, _trainability, cost_model,
                   simulate, with_attention)
from .tensor import INDEX_BYTES


@dataclass(frozen=True)
class InferenceCosts:
    """The figures of the inference span: forward FLOPs, the weights' bytes, the peak (``bytes`` None: bounds)."""

    settings: Settings
    forward: int
    weights: int
    peak: Peak
    #: As :attr:`~.step.Costs.attention_fallback`: the SDPA refusal that made the default attention eager.
    attention_fallback: str | None = None
    #: As :attr:`~.step.Costs.sdpa_math`: SDPA ran its math path, not CPU's flash kernel.
    sdpa_math: bool = False

    def to_dict(self) -> dict[str, Any]:
        """``costs`` in the CLI's JSON: ``mode`` "inference", the settings that apply, ``flops.forward``,
        ``memory.weights`` and ``memory.peak``, ``peak_at`` (None without a figure) and, without one,
        ``peak_note`` (its code, the reason, the proven lower and upper bounds)."""
        s = self.settings
        out: dict[str, Any] = {"mode": "inference", "batch": s.batch, "seq_len": s.seq_len, "dtype": s.dtype,
                               "attention": s.attention, "mixed_precision": s.autocast,
                               "flops": {"forward": self.forward},
                               "memory": {"weights": self.weights, "peak": self.peak.bytes},
                               "peak_at": self.peak.at_dict()}
        if self.attention_fallback:
            out["attention_fallback"] = self.attention_fallback
        if self.sdpa_math:
            out["sdpa_kernel"] = "math"
        if self.peak.bytes is None:
            out["peak_note"] = {"code": self.peak.note, "reason": self.peak.reason,
                                "lower": self.peak.lower or None, "upper": self.peak.upper}
        return out


def compute_inference(inv: Inventory, s: Settings) -> InferenceCosts:
    """The inference span of ``inv`` at ``s`` (batch, length, dtype, attention, mixed precision; the training
    options must be their defaults: :func:`check_settings`; attention ``default`` resolved for the class as the
    training step resolves it: :func:`~.step.with_attention`)."""
    if s.attention == "default":
        return with_attention(inv, s, lambda chosen: compute_inference(inv, chosen))
    check_settings(s)
    sim, outputs = simulate(inv, s, None, inference=True)
    itemsize = DTYPES[s.dtype]
    params, _ = _named_parameters(inv, None, itemsize, sim.used)
    weights = sum(_numel(shape) * size for _, shape, size in params)
    if sim.forward > MAX_FIGURE or weights > MAX_FIGURE:
        raise CalcError("costs_too_large", key="FLOPs", value=f"{max(sim.forward, weights):,}")
    return InferenceCosts(s, sim.forward, weights, _peak(inv, s, sim, outputs, params), sdpa_math=sim.sdpa_math_ran)


def check_settings(s: Settings) -> None:
    """Inference has no optimizer and no backward: a training option away from its default is refused, coded."""
    for key, flag in (("optimizer", "--optimizer"), ("checkpointing", "--grad-checkpointing")):
        if getattr(s, key) != Settings.__dataclass_fields__[key].default:
            raise CalcError("costs_inference_option", option=flag)


def _start(inv: Inventory, s: Settings, params: Any) -> list[Item] | None:
    model = cost_model(inv)
    if model.buffers is None:
        return None
    items = [Item("weights", name, _numel(shape) * size) for name, shape, size in params]
    items += [Item("buffer", name, _numel(shape) * (size or DTYPES[s.dtype]))  # 0: cast with the model
              for name, shape, size in model.buffers(inv)]
    items += [Item("buffer", t.name, _numel(t.shape) * DTYPES[s.dtype]) for t in inv.tensors if t.buffer]
    items.append(Item("input_ids", "input_ids", s.batch * s.seq_len * INDEX_BYTES))
    return items


def _peak(inv: Inventory, s: Settings, sim: Any, outputs: Any, params: Any) -> Peak:
    start_items = _start(inv, s, params)
    if start_items is None:
        return not_modelled("family")
    if sim.peak_unchecked:  # a path of the program no bound was proven for (BigBird's decoder, QA)
        return not_modelled("config")
    start = sum(i.bytes for i in start_items)
    kept = {o.storage: o.numel * o.itemsize for o in outputs}
    sizes = [n for n in sim.storages.values() if n]
    lower = start + sum(kept.values())
    upper = start + sum(sizes) + 3 * max(sizes or [0])
    exact = _replayed(inv, s, start_items)
    if exact is not None:
        return exact
    reason = ("attention " + s.attention if s.attention != "eager" else "mixed_precision" if s.autocast
              else "forward")
    return Peak(None, note="peak_not_modelled", bound=upper, reason=reason, lower=lower, upper=upper)


def _replayed(inv: Inventory, s: Settings, start_items: list[Item]) -> Peak | None:
    """The forward replayed exactly (:func:`.lifetime.replay_forward`) where the program declares every release."""
    from .lifetime import LiveSim, replay_forward

    trains, lora = _trainability(inv, None)
    sim = LiveSim(inv, DTYPES[s.dtype], trains, lora, False)
    sim.grad_mode = False
    sim.training = False
    sim.attention = s.attention  # SDPA: the flash kernel's output and its logsumexp, dropped at once
    if s.autocast is not None:  # the cast cache keeps every trained weight's and bias's copy to the end
        sim.lower = AUTOCAST[s.autocast]
    outputs = cost_model(inv).program(sim, inv, s.batch, s.seq_len)
    if sim.failed or not (sim.opted and sim.forward_exact) or (s.autocast is not None and not sim.autocast_exact):
        return None
    replay = replay_forward(sim, {o.storage for o in outputs}, start_items)
    assert replay.bytes is not None
    return Peak(replay.bytes, "forward", replay.op, replay.module, replay.items, replay.by_kind, None, replay.bytes,
                None, replay.bytes, replay.bytes)
