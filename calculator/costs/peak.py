"""The peak of live memory of one training step (issue 32), where the engine can prove it exactly.

**The definition** (the cross-check measures exactly this, ``tests/crosscheck/peak_measure.py``):
the largest sum, at any moment, of the bytes of live tensor storages as a ``TorchDispatchMode``
sees them; parameters, buffers and ``input_ids`` live from the start; a storage counted once
however many views share it; freed when CPython frees it. The span: ``out = model(input_ids=ids)``,
``loss = sum(o.float().sum())``, ``del out``, ``loss.backward()``, ``del loss``, ``optimizer.step()``.

**What this layer models exactly: the optimizer step.** When the backward has returned, what is
live is known to the byte and needs no knowledge of the forward: every parameter (trainable or
not, tied ones once), the registered buffers (declared by the family: :attr:`CostModel.buffers`,
as they are not in the inventory), ``input_ids`` (int64), and one ``.grad`` per parameter the loss
reached (``AccumulateGrad`` keeps the incoming gradient itself, so exactly its size). Then
PyTorch's CPU optimizers (the for-loop implementation, CPU's default) allocate:

* AdamW: ``_init_group`` creates every parameter's state first (``step``, a 0-dim float32 of 4
  bytes; ``exp_avg`` and ``exp_avg_sq``, ``zeros_like``), then updates one parameter at a time;
  ``denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)`` holds two temporaries the
  size of parameter i (the square root, then the division) while the previous parameter's
  ``denom`` is still bound to the loop's variable. The peak is at the division (``aten.div``) of
  the i maximising ``denom_{i-1} + 2·p_i``, in the order of ``model.parameters()`` (parameters
  without a gradient are skipped: they are not in the optimizer's list).
* SGD with momentum: ``momentum_buffer = clone(grad)`` one parameter at a time: the peak is at
  the last ``aten.clone``, every buffer live.
* SGD without momentum updates in place: the optimizer step allocates nothing, so its live bytes
  never exceed the backward's end, and the peak lies before it (not modelled: ``None``).
* Adafactor: not modelled yet (``None``).

**The bound on everything before.** The forward, the loss and the backward are not yet modelled
op by op here. Instead the layer bounds them from above and gives the optimizer's figure only
when it is larger than that bound, so the figure is the peak itself and never a guess:

    start (weights, buffers, ids) + gradients (G) + A + F + 3·max(largest forward tensor,
    largest trained parameter) + the loss's float copies and sums

where F is the bytes of every storage the simulator's program creates (:attr:`Ops.storages`,
forward and a checkpointed block's replay) and A the bytes autograd saves (:attr:`Ops.activations`).
In the forward at most F is live besides the start. After it only what autograd saved (A) and the
outputs survive (``del out`` frees the outputs nothing saved); in the backward the gradients of the
activations pending in the engine's buffers are at most one per forward tensor (F), a checkpointed
block's recomputation at most its share of F, a node's own temporaries and the sum of two
gradients of a multi-use tensor (a tied weight's two gradients and their sum) at most three of the
largest, and the parameters' gradients at most G. When the bound is not below the optimizer's figure,
the peak is ``None`` with the note ``peak_not_modelled``: the cross-check
(``tests/crosscheck/test_peak_engine.py``) holds the bound above the measured forward and
backward of every drawn case, and the figure equal to the measured peak.

**How an operation takes part** (for whoever adds one to :mod:`.ops`, e.g. SDPA with outputs
``[B, A, L, d]`` and a float32 logsumexp ``[B, A, L]``): create every tensor the operation
returns with :meth:`Ops.new` (its bytes go into :attr:`Ops.storages`, hence into F), and declare
what autograd keeps with :meth:`Ops.save`; a view (``view``, ``transpose``, ``expand``,
``select``) makes no storage. Nothing else is needed here: an operation that allocates without
calling ``new`` would make F too small, which the cross-check would show.

**Op by op, where a family's program is modelled so** (:mod:`.lifetime`, issue 32 item 1): the step first
tries :class:`~.lifetime.LiveSim`, which replays the backward node by node as the autograd engine runs it
(each node's gradients, ``sum_to``'s reductions, the out-of-place sum of a tensor's gradients, the
release of the incoming gradient and the saved storages, ``AccumulateGrad`` keeping ``.grad``) and bounds
the forward and the loss through the model's Python scopes. Its figure is the larger of the backward's exact
maximum and the optimizer step's above, given when the forward's and the loss's bounds lie strictly below:
the peak in the backward is then exact (bert-base B8 L512 eager fp32: 6,867,854,344 bytes, measured equal).
Covered: the families whose program opts in (``sim.exact_lifetimes()``; the "What fits" page lists them, asked
of the engine when it is built: BERT and its clones, the pre-LN encoders, DeBERTa-v2, ModernBERT, EuroBERT, the
rotary families RoFormer, ESM and Nomic BERT, LayoutLM, RoCBert, MPNet among them), their base models and heads,
fp32 and bf16 (and bf16 autocast where the program opts in with ``sim.exact_autocast()``), eager and SDPA's fused
kernel, AdamW, SGD with or without momentum, frozen parameters, LoRA, non-reentrant checkpointing, and reentrant
checkpointing for the families whose cost model declares ``reentrant``. Everything else falls back to this module's answer
above (the optimizer step when provable, else no figure).

**What remains** (issue 32): reentrant checkpointing of the other families (DeBERTa's keyword arguments, the
rotary tables ModernBERT and EuroBERT pass), causal masks, SDPA's math path (replayed only for T5's trained
position bias in float32: ``LiveSim.sdpa_math_replayed``), and the families whose program does not opt in yet
(Longformer, BigBird, Funnel, DeBERTa v1...): their peak keeps this module's proven bounds.

Standard library only; imports only :mod:`.tensor` (below the step, above the families).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from .tensor import INDEX_BYTES, T

#: AdamW's and Adafactor's per-parameter ``step``: a 0-dim float32.
STEP_BYTES = 4
#: How many of the largest live items ``peak_at`` lists.
TOP_ITEMS = 6
#: CUDA's caching allocator's smallest block (``kMinBlockSize``): every allocation is rounded up to a multiple of
#: it, which is what ``torch.cuda.max_memory_allocated()`` and PyTorch's ``MemTracker`` count (issue 35).
BLOCK = 512
#: Most points a phase of the timeline keeps (``costs.timeline``): the page draws it and JSON carries it, so it is
#: bounded whatever the model's depth; each phase's first, last and largest values are always among them.
TIMELINE_POINTS = 240


def rounded(n: int, block: int = BLOCK) -> int:
    """``n`` bytes rounded up to a multiple of ``block`` (0 stays 0: an empty storage allocates nothing)."""
    return -(-n // block) * block

#: A parameter as this layer needs it: (name, number of elements, bytes per element).
Named = tuple[str, int, int]


@dataclass(frozen=True)
class Item:
    """A storage live at the peak: ``kind`` is weights, buffer, input_ids, gradient, exp_avg, exp_avg_sq,
    step, momentum_buffer or temporary; ``name`` the parameter (or buffer, or the op of a temporary)."""

    kind: str
    name: str
    bytes: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "bytes": self.bytes}


@dataclass(frozen=True)
class Peak:
    """The step's peak: ``bytes`` None when not modelled (``note`` says why, an error code)."""

    bytes: int | None
    phase: str | None = None
    op: str | None = None
    module: str | None = None
    items: tuple[Item, ...] = ()
    by_kind: dict[str, int] = field(default_factory=dict)
    note: str | None = None
    #: The upper bound on the forward, the loss and the backward (0 when not worked out).
    bound: int = 0
    #: Why there is no figure (a short English tag: "adafactor", "forward or backward", "attention sdpa"...).
    reason: str | None = None
    #: Proven bounds on the peak where there is no figure (equal to it where there is): ``lower`` is what is
    #: live in the optimizer step (plain SGD: the weights and gradients at the backward's end); ``upper`` the
    #: larger of the bound and the optimizer step's live bytes (None: not known, Adafactor).
    lower: int = 0
    upper: int | None = None
    #: The live bytes through the step (:func:`with_timeline`): one :class:`Phase` each for the forward, the
    #: backward and the optimizer step; empty where the peak has no figure.
    timeline: tuple["Phase", ...] = ()
    #: The peak with every storage rounded up to :data:`BLOCK` bytes, as CUDA's allocator counts it: its own
    #: maximum (it may fall at another moment than ``bytes``); None where not proven.
    bytes_512: int | None = None
    #: Where this peak is a replayed phase's (the forward's, the loss's: :mod:`.lifetime`): the live bytes at each of
    #: its observations, in order (the timeline's points for that phase).
    trace: tuple[int, ...] = ()

    def timeline_dict(self) -> dict[str, Any] | None:
        """``costs.timeline``: the phases in order, each exact (its points) or bounded (its bound only)."""
        if not self.timeline:
            return None
        return {"peak": self.bytes, "peak_512": self.bytes_512, "phases": [p.to_dict() for p in self.timeline]}

    def at_dict(self) -> dict[str, Any] | None:
        """``costs.peak_at``: the phase, the op and parameter at the peak, the largest items and bytes by kind."""
        if self.bytes is None:
            return None
        return {"phase": self.phase, "op": self.op, "module": self.module,
                "items": [i.to_dict() for i in self.items], "by_kind": dict(self.by_kind)}


@dataclass(frozen=True)
class Phase:
    """One phase of the step's timeline. ``exact``: ``points`` are (the observation's index within the phase, the
    live bytes then), downsampled (:func:`downsample`) from ``events`` observations (one per allocation), and
    ``maximum`` is theirs. Not exact: the phase is only bounded, ``maximum`` is the proven upper bound on its live
    bytes and there are no points (a bound is drawn as a bound, never as a measurement)."""

    name: str
    exact: bool
    maximum: int
    events: int = 0
    points: tuple[tuple[int, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"phase": self.name, "exact": self.exact}
        if self.exact:
            out.update({"max": self.maximum, "events": self.events, "points": [list(p) for p in self.points]})
        else:
            out["bound"] = self.maximum
        return out


def downsample(values: Sequence[int], limit: int = TIMELINE_POINTS) -> tuple[tuple[int, int], ...]:
    """At most ``limit`` (index, value) pairs of ``values``, in order: all of them when they fit; else the first,
    the last, and per bucket of the indices between them its smallest and largest (so the largest of all, and
    every dip and rise wider than a bucket, stay). ``limit`` ≥ 4."""
    n = len(values)
    if n <= limit:
        return tuple(enumerate(values))
    buckets = (limit - 2) // 2
    keep = {0, n - 1}
    inner = n - 2
    for b in range(buckets):
        lo, hi = 1 + b * inner // buckets, 1 + (b + 1) * inner // buckets
        if lo < hi:
            span = range(lo, hi)
            keep.add(max(span, key=lambda i: values[i]))
            keep.add(min(span, key=lambda i: values[i]))
    return tuple((i, values[i]) for i in sorted(keep))


def optimizer_series(optimizer: str, start_items: Sequence[Item], graded: Sequence[Named],
                     block: int = 1, grad_bytes: Mapping[str, int] | None = None) -> list[int] | None:
    """The live bytes at every allocation inside ``optimizer.step()`` (the for-loop implementation the module's
    docstring describes), the first value being what is live as it begins (start, every ``.grad``); each storage
    rounded up to ``block``. None where the step is not modelled (Adafactor). Plain SGD allocates nothing: one
    value. Its maximum is :func:`optimizer_peak`'s figure (``block`` 1). ``grad_bytes``: a ``.grad`` whose storage
    is larger than its parameter (a view of a larger gradient: :attr:`.lifetime.Timeline.grads`), by name."""
    grads = grad_bytes or {}
    live = sum(rounded(i.bytes, block) for i in start_items)
    live += sum(rounded(grads.get(name, n * size), block) for name, n, size in graded)
    out = [live]
    if optimizer == "adamw":
        for _, n, size in graded:  # _init_group: step, exp_avg, exp_avg_sq for every parameter first
            for b in (STEP_BYTES, n * size, n * size):
                live += rounded(b, block)
                out.append(live)
        previous = 0
        for _, n, size in graded:
            b = rounded(n * size, block)
            out += [live + previous + b, live + previous + 2 * b]  # the square root, then the division
            previous = b  # the square root freed; the division (denom) replaces the previous denom
        return out
    if optimizer == "sgd-momentum":
        for _, n, size in graded:
            live += rounded(n * size, block)
            out.append(live)
        return out
    if optimizer == "sgd":
        return out
    return None


def with_timeline(p: Peak, optimizer: str, start_items: Sequence[Item], graded: Sequence[Named],
                  before: int, before_slack: int, backward: Sequence[tuple[int, int]] | None = None,
                  backward_offset_512: int = 0, forward: Sequence[int] = (),
                  grad_bytes: Mapping[str, int] | None = None) -> Peak:
    """``p`` (a peak with a figure) with its timeline and its 512-rounded figure.

    ``before``: the proven upper bound on everything not replayed exactly (the forward and the loss; the backward
    too where ``backward`` is None); ``before_slack``: how much rounding every storage in that bound up to
    :data:`BLOCK` can add to it (511 bytes per storage it counts). ``backward``: :attr:`.lifetime.Backward.trace`,
    (live bytes, the ledger's storages rounded) per observation; ``backward_offset_512``: what the rounded ledger
    leaves out (the start's and the loss's storages, rounded). The timeline's largest value is ``p.bytes`` (else
    ``p`` is returned as it is: no chart that disagrees with the figure); the 512 figure is given only where the
    rounded bound on ``before`` lies strictly below it, as the figure itself is. ``forward``: where the forward and
    the loss are replayed exactly too, their live bytes at each observation (the phase is then exact, its maximum
    ``before``)."""
    if p.bytes is None:
        return p
    exact = optimizer_series(optimizer, start_items, graded, grad_bytes=grad_bytes)
    exact_512 = optimizer_series(optimizer, start_items, graded, BLOCK, grad_bytes)
    if exact is None or exact_512 is None:
        return p
    maxima, maxima_512 = [max(exact)], [max(exact_512)]
    if forward and max(forward) == before:
        phases = [Phase("forward", True, before, len(forward), downsample(list(forward)))]
        maxima.append(before)
    else:
        phases = [Phase("forward", False, before)]
    if backward:
        live = [v for v, _ in backward]
        phases.append(Phase("backward", True, max(live), len(live), downsample(live)))
        maxima.append(max(live))
        maxima_512.append(max(r for _, r in backward) + backward_offset_512)
    else:
        phases.append(Phase("backward", False, before))
    phases.append(Phase("optimizer", True, max(exact), len(exact), downsample(exact)))
    if max(maxima) != p.bytes:
        return p
    start_512 = sum(rounded(i.bytes, BLOCK) for i in start_items)
    start = sum(i.bytes for i in start_items)
    bound_512 = before + before_slack + (start_512 - start)
    figure_512 = max(maxima_512) if bound_512 < max(maxima_512) else None
    return replace(p, timeline=tuple(phases), bytes_512=figure_512)


def _numel(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def not_modelled(reason: str) -> Peak:
    """No figure: ``reason`` is a short English tag the note carries (the message is ``peak_not_modelled``)."""
    return Peak(None, note="peak_not_modelled", reason=reason)


def before_optimizer_bound(start: int, gradients: int, activations: int, storages: Sequence[int],
                           outputs: Sequence[T], largest_param: int,
                           blocks: Sequence[Sequence[int]] = ()) -> int:
    """The upper bound on live bytes in the forward, the loss and the backward (see the module's docstring).

    ``blocks``: with gradient checkpointing, the storages each checkpointed block's two runs make (the
    forward's without a graph, the backward's replay), left out of ``storages``. One block runs at a time
    (its forward's storages are gone when it returns, but for its output, the next block's saved input, in
    A; its replay's are released by its backward before the previous block is replayed), so its share of F
    is the largest block's one run, twice over (its tensors and their gradients pending): the sum of both
    runs' storages."""
    forward = sum(storages) + max([sum(b) for b in blocks] or [0])
    sizes = [*storages, *(n for b in blocks for n in b)]
    largest = max([largest_param, *sizes])
    loss = sum(o.numel * 4 + 4 for o in outputs) + 4 + 4 * len(outputs)  # float copies, their sums, the sum, ones
    return start + gradients + activations + forward + 3 * largest + loss


def optimizer_peak(optimizer: str, start_items: Sequence[Item], graded: Sequence[Named],
                   grad_bytes: Mapping[str, int] | None = None) -> Peak:
    """The live bytes' maximum inside ``optimizer.step()`` (for-loop implementation), with what is live then;
    ``grad_bytes``: as :func:`optimizer_series` (the state and the temporaries are the parameter's size)."""
    grads = [Item("gradient", name, (grad_bytes or {}).get(name, n * size)) for name, n, size in graded]
    base = list(start_items) + grads
    if optimizer == "adamw":
        state: list[Item] = []
        for name, n, size in graded:
            state += [Item("step", name, STEP_BYTES), Item("exp_avg", name, n * size),
                      Item("exp_avg_sq", name, n * size)]
        best, at = -1, 0
        for i, (_, n, size) in enumerate(graded):
            previous = graded[i - 1][1] * graded[i - 1][2] if i else 0
            value = previous + 2 * n * size
            if value > best:
                best, at = value, i
        name, n, size = graded[at]
        temps = [Item("temporary", "sqrt", n * size), Item("temporary", "div", n * size)]
        if at:
            temps.append(Item("temporary", "denom of " + graded[at - 1][0], graded[at - 1][1] * graded[at - 1][2]))
        return _peak(base + state + temps, "optimizer", "aten.div", name)
    if optimizer == "sgd-momentum":
        buffers = [Item("momentum_buffer", name, n * size) for name, n, size in graded]
        return _peak(base + buffers, "optimizer", "aten.clone", graded[-1][0])
    return not_modelled(optimizer)


def _peak(items: list[Item], phase: str, op: str, module: str) -> Peak:
    kinds: dict[str, int] = {}
    for i in items:
        kinds[i.kind] = kinds.get(i.kind, 0) + i.bytes
    top = sorted((i for i in items if i.bytes), key=lambda i: (-i.bytes, i.kind, i.name))[:TOP_ITEMS]
    return Peak(sum(i.bytes for i in items), phase, op, module, tuple(top), kinds)


def step_peak(optimizer: str, params: Sequence[Named], graded: Sequence[Named],
              buffers: Sequence[Named], batch: int, seq_len: int, storages: Sequence[int],
              outputs: Sequence[T], activations: int, blocks: Sequence[Sequence[int]] = ()) -> Peak:
    """The peak of the step: the optimizer's when it provably exceeds everything before it, else None.

    ``params``: every distinct parameter (name, numel, itemsize); ``graded``: those that get a ``.grad``,
    in ``model.parameters()`` order; ``buffers``: the class's registered buffers; ``storages``: the bytes
    of every storage the program created (:attr:`Ops.storages`); ``outputs``: the program's outputs;
    ``activations``: the bytes autograd saves (:attr:`Ops.activations`); ``blocks``: the storages of each
    checkpointed block's runs (:attr:`Sim.blocks`), not in ``storages``.
    """
    start_items = [Item("weights", name, n * size) for name, n, size in params]
    start_items += [Item("buffer", name, n * size) for name, n, size in buffers]
    start_items.append(Item("input_ids", "input_ids", batch * seq_len * INDEX_BYTES))
    if not graded:
        return not_modelled("nothing trains")
    start = sum(i.bytes for i in start_items)
    gradients = sum(n * size for _, n, size in graded)
    largest_param = max(n * size for _, n, size in graded)  # only a parameter that gets a gradient has two
    bound = before_optimizer_bound(start, gradients, activations, storages, outputs, largest_param, blocks)
    # Not the forward's end (start + every saved storage): a storage saved by a node the loss never reaches
    # is freed before it (measured: DeBERTa with frozen layers), so only the optimizer's live set is certain.
    opt = optimizer_peak(optimizer, start_items, graded)
    if opt.bytes is None:
        if optimizer == "sgd":  # its step allocates nothing: never above the backward's end, so below the bound
            return Peak(None, note="peak_not_modelled", bound=bound, reason="sgd", lower=start + gradients,
                        upper=bound)
        return opt
    if bound >= opt.bytes:
        return Peak(None, note="peak_not_modelled", bound=bound, reason="forward or backward",
                    lower=opt.bytes, upper=bound)
    return Peak(opt.bytes, opt.phase, opt.op, opt.module, opt.items, opt.by_kind, None, bound, None,
                opt.bytes, opt.bytes)
