"""One training step's figures: checked settings, the parameters' bytes, the optimizer's state, :func:`compute`.

The top layer of :mod:`calculator.costs`, above the families: it runs the
family's declared program (:class:`~.declare.CostModel`) on the simulator and
adds up. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence, TypeVar

from ..errors import CalcError
from ..model import Inventory
from .declare import CostModel, check_step_keys, step_value
from .modules import ADAPTED, Sim
from .peak import BLOCK, Item, Peak, not_modelled, step_peak, with_timeline
from .tensor import ADAPTER_BYTES, T

R = TypeVar("R")

DTYPES: dict[str, int] = {"fp32": 4, "bf16": 2}
OPTIMIZERS: tuple[str, ...] = ("adamw", "sgd", "sgd-momentum", "adafactor")
#: The per-parameter ``step`` counter of AdamW and Adafactor: a float32 scalar tensor.
STEP_BYTES = 4
#: Bounds on B and L. They do not by themselves keep every figure below 2^53 (B = 999,999 and L = 511 give a
#: BERT forward of ~9.7 × 10^16 FLOPs): :data:`MAX_FIGURE` does, checked on the figures themselves.
MAX_BATCH = 1_000_000
MAX_SEQ_LEN = 1_000_000
#: The largest figure a step reports: 2^53 − 1, the largest integer a JavaScript number (the page) or a
#: JSON reader that parses numbers as doubles keeps exact; above it, ``costs_too_large``.
MAX_FIGURE = 2**53 - 1


@dataclass(frozen=True)
class Settings:
    """What a training step is run with (besides the model and the plan)."""

    batch: int
    seq_len: int
    dtype: str = "fp32"
    optimizer: str = "adamw"
    checkpointing: bool = False
    #: Checkpointing's ``use_reentrant``: False, transformers 5.23's default (``gradient_checkpointing_enable()``
    #: without arguments, Trainer's ``gradient_checkpointing=True``; issue 35 H3), or True, the older way.
    reentrant: bool = False
    #: The attention: "eager" or "sdpa" (:data:`ATTENTIONS`). Eager stays the default until every family's SDPA
    #: path is proven; transformers 5.23 itself picks sdpa where the class supports it (``Family.default_attention``).
    attention: str = "eager"
    #: Mixed precision (issue 32): None, or "bf16": weights float32 and ``torch.autocast("cpu",
    #: dtype=torch.bfloat16)`` around the forward only, as Trainer(bf16=True) runs it (:data:`AUTOCAST`).
    autocast: str | None = None

    @property
    def checkpointing_mode(self) -> str | bool:
        """``"non-reentrant"``, ``"reentrant"``, or False (off): the JSON's ``grad_checkpointing``."""
        return ("reentrant" if self.reentrant else "non-reentrant") if self.checkpointing else False

    def to_dict(self) -> dict[str, Any]:
        return {
            "batch": self.batch, "seq_len": self.seq_len, "dtype": self.dtype, "optimizer": self.optimizer,
            "grad_checkpointing": self.checkpointing_mode, "attention": self.attention,
            "mixed_precision": self.autocast,
        }


@dataclass(frozen=True)
class Costs:
    """The figures of one training step: FLOPs and bytes, all integers."""

    settings: Settings
    forward: int
    backward: int
    weights: int
    gradients: int
    optimizer: int
    activations: int
    #: The peak of live memory (:mod:`.peak`); its ``bytes`` None where not modelled.
    peak: Peak | None = None
    #: SDPA with attention dropout > 0 (issue 35, reader H1): the (key, value) of each attention dropout the
    #: figures were measured without. PyTorch's fused kernel on CPU has no dropout (CPU runs the math path
    #: instead); a GPU's fused kernels apply it inside and keep no mask, so the figures are the fused kernel's
    #: with attention dropout 0, every other dropout as configured, and the answer says so (``sdpa_dropout_gpu``).
    sdpa_dropout: tuple[tuple[str, float], ...] = ()
    #: The attention asked was ``default``, the class's default is SDPA, and its SDPA step was refused with this
    #: code (:data:`SDPA_REFUSALS`): the figures are eager attention's, and the answer says why.
    attention_fallback: str | None = None
    #: SDPA ran its math path somewhere (:meth:`~.ops.Ops.sdpa_math`: a mask needing a gradient, heads of unequal
    #: sizes), not CPU's flash kernel: the answer's attention sentence says which ran (``attention_sdpa_math_run``).
    sdpa_math: bool = False

    @property
    def memory_total(self) -> int:
        return self.weights + self.gradients + self.optimizer + self.activations

    def to_dict(self) -> dict[str, Any]:
        out = self.settings.to_dict()
        out["flops"] = {"forward": self.forward, "backward": self.backward}
        out["memory"] = {
            "weights": self.weights, "gradients": self.gradients, "optimizer": self.optimizer,
            "activations": self.activations,
        }
        if self.attention_fallback:
            out["attention_fallback"] = self.attention_fallback
        if self.sdpa_math:
            out["sdpa_kernel"] = "math"  # CPU's math path ran, not its flash kernel
        if self.peak is not None:
            out["memory"]["peak"] = self.peak.bytes
            out["memory"]["peak_512"] = self.peak.bytes_512  # every storage rounded to CUDA's 512-byte block
            out["peak_at"] = self.peak.at_dict()
            out["timeline"] = self.peak.timeline_dict()  # the live bytes through the step, where the peak is exact
            if self.peak.bytes is None:
                # What is proven even so: the peak lies between these (upper None: not known).
                out["peak_note"] = {"code": self.peak.note, "reason": self.peak.reason,
                                    "lower": self.peak.lower or None, "upper": self.peak.upper}
        return out




#: B and L as the page's fields and the CLI's help name them: an error says "Batch size B", not the query key.
SETTING_NAMES: dict[str, dict[str, str]] = {
    "batch": {"en": "Batch size B", "zh": "批大小 B"},
    "seq_len": {"en": "Sequence length L", "zh": "序列长度 L"},
}


def _positive(key: str, value: Any, maximum: int, name: dict[str, str] | None = None) -> int:
    """A whole number from 1 to ``maximum``; an error names the field by ``name`` (default :data:`SETTING_NAMES`)."""
    from ..config import coerce_int

    named: dict[str, Any] = {"name": name or SETTING_NAMES[key]} if (name or key in SETTING_NAMES) else {}
    try:
        n = coerce_int(key, value)
    except CalcError:
        raise CalcError("costs_not_positive", key=key, value=value, **named) from None
    if n <= 0:
        raise CalcError("costs_not_positive", key=key, value=n, **named)
    if n > maximum:
        raise CalcError("too_large", key=key, value=n, maximum=maximum, **named)
    return n


#: Gradient checkpointing's two ways, by ``use_reentrant``: False (transformers 5.23's default) and True.
CHECKPOINTING_MODES: tuple[str, ...] = ("non-reentrant", "reentrant")
#: How a link, a form or the CLI may say "off" and "on" (on: transformers' default, non-reentrant).
CHECKPOINTING_OFF: tuple[str, ...] = ("", "0", "false", "off", "no")
CHECKPOINTING_ON: tuple[str, ...] = ("1", "true", "on", "yes")


#: ``--mixed-precision`` values: autocast's lower dtype -> its bytes per number (off: None, "" or "off").
AUTOCAST: dict[str, int] = {"bf16": 2}


def _autocast(value: Any, dtype: str) -> str | None:
    """The mixed-precision setting checked: off, or "bf16" with fp32 weights (autocast over a model already
    cast to bf16 is not Trainer's mixed precision, and not a step this engine defines: refused)."""
    text = "" if value in (None, False) else str(value).strip().lower()
    if text in ("", "off", "none", "0", "false", "no"):
        return None
    if text not in AUTOCAST:
        raise CalcError("costs_mixed_precision", value=value, choices=list(AUTOCAST))
    if dtype != "fp32":
        raise CalcError("costs_autocast_dtype", value=text, dtype=dtype)
    return text


def checkpointing_mode(value: Any) -> str | bool:
    """Gradient checkpointing as the CLI, a link or the API give it: False (off: None, False, ``0``, ``off``…),
    ``"non-reentrant"`` (True, ``1``, ``on``…, or its name: transformers 5.23's default) or ``"reentrant"``;
    any other value is ``costs_checkpointing_mode``, never read as off."""
    if value is None or value is False:
        return False
    if value is True:
        return "non-reentrant"
    text = str(value).strip().lower()
    if text in CHECKPOINTING_MODES:
        return text
    if text in CHECKPOINTING_OFF or text in CHECKPOINTING_ON:
        return "non-reentrant" if text in CHECKPOINTING_ON else False
    raise CalcError("costs_checkpointing_mode", key="ckpt", value=value, choices=CHECKPOINTING_MODES)


#: The attention implementations the step runs: transformers' ``attn_implementation`` values.
ATTENTIONS: tuple[str, ...] = ("eager", "sdpa")
#: What a reader may ask for: one of :data:`ATTENTIONS`, or ``default``: what transformers 5.23 picks for the
#: class (``sdpa`` where the class supports it, else ``eager``; :func:`with_attention` resolves it).
ATTENTION_CHOICES: tuple[str, ...] = ("default",) + ATTENTIONS
#: The refusals of an SDPA step that the default attention answers with eager instead (the class offers no SDPA,
#: its SDPA step is not worked out here, or PyTorch would not run the fused kernel): the answer then says so.
SDPA_REFUSALS: tuple[str, ...] = ("costs_no_sdpa", "costs_sdpa_not_modelled")


def settings(batch: Any, seq_len: Any, dtype: Any = "fp32", optimizer: Any = "adamw", checkpointing: Any = False,
             attention: Any = "eager", autocast: Any = None) -> Settings:
    """Checked settings: B and L whole numbers ≥ 1, a known dtype, optimizer and attention, checkpointing by
    :func:`checkpointing_mode` (True: non-reentrant, transformers' default), mixed precision off or bf16 (with
    fp32 weights only)."""
    b = _positive("batch", batch, MAX_BATCH)
    n = _positive("seq_len", seq_len, MAX_SEQ_LEN)
    dtype = "fp32" if dtype in (None, "") else dtype
    if dtype not in DTYPES:
        raise CalcError("costs_dtype", value=dtype, choices=list(DTYPES))
    optimizer = "adamw" if optimizer in (None, "") else optimizer
    if optimizer not in OPTIMIZERS:
        raise CalcError("costs_optimizer", value=optimizer, supported=OPTIMIZERS)
    attention = "eager" if attention in (None, "") else (attention.strip().lower() if isinstance(attention, str) else attention)
    if attention not in ATTENTION_CHOICES:
        raise CalcError("costs_attention", value=attention, choices=list(ATTENTION_CHOICES))
    mode = checkpointing_mode(checkpointing)
    return Settings(b, n, dtype, optimizer, bool(mode), mode == "reentrant", attention, _autocast(autocast, dtype))


def with_attention(inv: Inventory, s: Settings, run: Callable[[Settings], R]) -> R:
    """``run(s)`` with ``s.attention`` resolved: as asked, or for ``default`` what transformers 5.23 builds the
    class with (``Family.default_attention``: sdpa where the class supports it). Where the SDPA step is refused
    (:data:`SDPA_REFUSALS`: not worked out for the class, or a shape PyTorch's fused kernel does not take) the
    default is eager, and the answer's assumptions say that transformers would run SDPA. The result's settings
    are the resolved ones (the JSON's ``attention`` is what ran)."""
    if s.attention != "default":
        return run(s)
    if getattr(inv.family, "default_attention", "eager") == "sdpa":
        try:
            return run(replace(s, attention="sdpa"))
        except CalcError as e:
            if e.code not in SDPA_REFUSALS:
                raise
            return replace(run(replace(s, attention="eager")), attention_fallback=e.code)  # type: ignore[type-var]
    return run(replace(s, attention="eager"))


def cost_model(inv: Inventory) -> CostModel:
    """The family's declaration, or a coded refusal: never a guess."""
    from ..families import FAMILIES  # only to list the supported families in the refusal

    model = getattr(inv.family, "costs", None)
    if model is None:
        supported = [mt for mt, f in FAMILIES.items() if getattr(f, "costs", None) is not None]
        raise CalcError(getattr(inv.family, "costs_refusal", None) or "costs_family", model_type=inv.model_type,
                        supported=supported)
    if model.architectures is not None and inv.architecture not in model.architectures:
        raise CalcError("costs_architecture", architecture=inv.architecture, supported=list(model.architectures))
    return model


def supported(inv: Inventory) -> bool:
    try:
        cost_model(inv)
    except CalcError:
        return False
    return True


Param = tuple[tuple[int, ...], int]  # (shape, bytes per number)


def _trainability(inv: Inventory, plan: Any) -> tuple[dict[str, bool], dict[str, int]]:
    """Per inventory tensor name, whether the storage the forward uses gets a gradient; LoRA's rank per module."""
    if plan is None:
        by_storage = {t.name: t.trainable for t in inv.unique}
        return {t.name: by_storage.get(t.tied_to or t.name, t.trainable) for t in inv.tensors}, {}
    trains = {}
    copied = {t.source for t in plan.tensors if t.kind == "copy"}
    for t in plan.tensors:
        if t.kind == "copy" or (t.kind == "base" and t.source not in copied):
            trains[t.source] = t.trainable
    lora = {}
    if plan.method == "lora":
        r = int(plan.settings["r"])
        lora = {m: r for m in plan.targets}
    return trains, lora


def _parameters(inv: Inventory, plan: Any, itemsize: int, used: set[str]) -> tuple[list[Param], list[Param]]:
    """Every distinct parameter, and those that end the backward with a ``.grad`` (trainable and read by the
    forward: an untied MLM head's own vocabulary bias is never read, so it gets none), as (shape, bytes per number)."""
    params, graded = _named_parameters(inv, plan, itemsize, used)
    return [(shape, size) for _, shape, size in params], [(shape, size) for _, shape, size in graded]


def _named_parameters(inv: Inventory, plan: Any, itemsize: int,
                      used: set[str]) -> tuple[list[tuple[str, tuple[int, ...], int]], list[tuple[str, tuple[int, ...], int]]]:
    """:func:`_parameters` with each parameter's name, in ``model.parameters()`` order (the peak's AdamW
    temporaries depend on it: :mod:`.peak`)."""
    storage_of = {t.name: t.tied_to or t.name for t in inv.tensors}
    read = {storage_of[n] for n in used if n in storage_of}
    if plan is None:
        params = [(t.name, t.shape, itemsize) for t in inv.unique]
        return params, [(t.name, t.shape, itemsize) for t in inv.unique if t.trainable and t.name in read]
    params, graded = [], []
    buffers = {t.name for t in inv.tensors if t.buffer}
    for t in plan.tensors:
        if t.tied_to is not None or (t.kind != "lora" and t.source in buffers):  # a buffer (ESM's inv_freq)
            continue
        size = ADAPTER_BYTES if t.kind == "lora" else itemsize
        params.append((t.name, t.shape, size))
        if t.kind == "lora":  # a LoRA tensor's source is its module: a .grad only if its adapters ran
            if t.trainable and t.source + ADAPTED in used:
                graded.append((t.name, t.shape, size))
            continue
        if t.trainable and storage_of.get(t.source) in read:
            graded.append((t.name, t.shape, size))
    return params, graded


def _numel(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def optimizer_bytes(optimizer: str, params: Sequence[Param]) -> int:
    """Bytes of ``optimizer.state`` after one step, per trainable parameter (its own dtype).

    AdamW: ``exp_avg`` and ``exp_avg_sq`` (the parameter's size each) and a float32
    ``step``; SGD: nothing; SGD with momentum: ``momentum_buffer``; Adafactor
    (``torch.optim.Adafactor``): for a matrix [r, c] the row and column statistics
    (r + c numbers), for a vector its full variance, and a float32 ``step``.
    """
    total = 0
    for shape, size in params:
        n = _numel(shape)
        if optimizer == "adamw":
            total += 2 * n * size + STEP_BYTES
        elif optimizer == "sgd-momentum":
            total += n * size
        elif optimizer == "adafactor":
            if len(shape) >= 2:
                rows = n // shape[-1] if shape[-1] else _numel(shape[:-1])
                cols = n // shape[-2] if shape[-2] else _numel(shape[:-2]) * shape[-1]
                total += (rows + cols) * size + STEP_BYTES
            else:
                total += n * size + STEP_BYTES
    return total


def simulate(inv: Inventory, s: Settings, plan: Any = None, inference: bool = False) -> tuple[Sim, Sequence[T]]:
    """The family's program run for one step of ``inv`` under ``s``: the simulator (its :attr:`Sim.tape`, a row
    per operation, names the module each figure comes from) and the program's outputs. Refusals as :func:`compute`.
    ``inference``: the inference span's forward (``model.eval()`` under ``torch.no_grad()``: no graph, no dropout)."""
    model = cost_model(inv)
    fails = s.autocast is not None and model.autocast_fails is not None and model.autocast_fails(inv.config)
    if s.autocast is not None and not model.autocast and not fails:  # before any other check: the step not matched
        from ..families import FAMILIES  # only to list the families checked under autocast in the refusal

        raise CalcError("costs_autocast_family", model_type=inv.model_type,
                        supported=[mt for mt, f in FAMILIES.items() if getattr(f.costs, "autocast", False)])
    if model.max_seq_len is not None:
        longest = model.max_seq_len(inv.config)
        if longest is not None and s.seq_len > longest:
            raise CalcError("costs_seq_too_long", value=s.seq_len, maximum=longest)
    if model.check is not None:
        model.check(inv)
    if fails:  # after the config's own refusals: PyTorch raises under autocast whatever else is set (measured)
        raise CalcError("costs_forward_fails", key="mixed_precision", value=s.autocast)
    check_step_keys(inv, model)
    if s.checkpointing and not model.checkpointing:
        raise CalcError("costs_no_checkpointing", architecture=inv.architecture)
    if s.attention == "sdpa":
        check_sdpa(inv, model)
    itemsize = DTYPES[s.dtype]
    trains, lora = _trainability(inv, plan)
    sim = Sim(inv, itemsize, trains, lora, s.checkpointing)
    sim.reentrant = s.reentrant
    sim.attention = s.attention
    if s.autocast is not None:
        sim.lower = AUTOCAST[s.autocast]
    if inference:
        sim.grad_mode = sim.training = False
    return sim, model.program(sim, inv, s.batch, s.seq_len)


def check_sdpa(inv: Inventory, model: CostModel) -> None:
    """Refuse SDPA where it is not this step: a class transformers builds without SDPA (``costs_no_sdpa``), or a
    program that does not model it yet (``costs_sdpa_not_modelled``). Attention dropout > 0 is not refused: the
    step is the fused kernel's with attention dropout 0 (:func:`sdpa_dropout`), as a GPU runs it."""
    from ..families import FAMILIES  # only to list the families whose SDPA step is worked out

    if getattr(inv.family, "default_attention", "eager") != "sdpa":
        raise CalcError("costs_no_sdpa", architecture=inv.architecture)
    if not model.sdpa:
        supported = [mt for mt, f in FAMILIES.items() if getattr(getattr(f, "costs", None), "sdpa", False)]
        raise CalcError("costs_sdpa_not_modelled", architecture=inv.architecture, supported=supported)


def sdpa_dropout(inv: Inventory, s: Settings) -> tuple[tuple[str, float], ...]:
    """The attention dropouts > 0 an SDPA step is measured without, as (key, value).

    SDPA's fused kernels keep no dropout mask: on a GPU flash and memory-efficient attention apply the dropout
    inside the kernel and keep only their random-number state (``philox_seed``/``philox_offset``, flash's
    ``rng_state``: a few bytes per layer); PyTorch's CPU fused kernel has no dropout, and CPU runs SDPA's math
    path (which keeps the mask) instead. The programs model the fused kernel, with attention dropout 0 and every
    other dropout as configured, and ``tests/crosscheck/test_costs_sdpa_reference.py`` proves each figure equal
    to PyTorch's step with ``dropout_p`` 0 in ``scaled_dot_product_attention`` alone."""
    if s.attention != "sdpa":
        return ()
    model = cost_model(inv)
    values = ((key, step_value(inv, key, 0.1)) for key in model.sdpa_dropout)
    return tuple((key, value) for key, value in values if value > 0)


def _peak(inv: Inventory, s: Settings, sim: Sim, outputs: Sequence[T], params: Sequence[tuple[str, tuple[int, ...], int]],
          graded: Sequence[tuple[str, tuple[int, ...], int]], plan: Any = None) -> Peak:
    """The step's peak (:func:`.peak.step_peak`) for a family that declares its buffers, with the settings the
    cross-check covers; otherwise a coded "not modelled" (never a figure that was not proven)."""
    model = cost_model(inv)
    if model.buffers is None:
        return not_modelled("family")
    if sim.peak_unchecked:  # a path of the family's program no bound was proven for (BigBird's decoder, QA)
        return not_modelled("config")
    for name in s.__dataclass_fields__:  # a setting added later is not covered yet
        if name not in _PEAK_SETTINGS + ("autocast",) and getattr(s, name) != s.__dataclass_fields__[name].default:
            return not_modelled(name)
    # size 0: a floating buffer, cast with the model (ModernBERT's rotary inv_freq)
    buffers = [(name, _numel(shape), size or DTYPES[s.dtype]) for name, shape, size in model.buffers(inv)]
    buffers += [(t.name, _numel(t.shape), DTYPES[s.dtype]) for t in inv.tensors if t.buffer]
    in_block = set()
    blocks = []
    for first, last in sim.blocks:
        ids = [i for i in sim.storages if first < i <= last]
        in_block.update(ids)
        blocks.append([sim.storages[i] for i in ids])
    storages = [n for i, n in sim.storages.items() if i not in in_block]
    exact = _op_by_op(inv, s, plan, params, graded, buffers)  # checkpointing replayed too, either kind
    if exact is not None:
        return exact
    if sim.peak_refused:  # (the program's Ops.refuse_peak: only the op-by-op replay counts it)
        return not_modelled("family")
    # mixed precision: only the op-by-op replay is proven, or the bound where the program lists autocast's copies and
    # says so (Reformer's layers: its weights' cached copies outside the layers' blocks, the rerun in float32)
    if s.autocast is not None and not sim.autocast_bounded:
        return not_modelled("autocast")
    peak = step_peak(s.optimizer, [(n, _numel(sh), z) for n, sh, z in params],
                     [(n, _numel(sh), z) for n, sh, z in graded], buffers, s.batch, s.seq_len,
                     storages, outputs, sim.activations, blocks)
    # The timeline: the optimizer step exact, everything before it under the one bound. Rounding each storage the
    # bound counts (the start apart) adds at most 511 bytes: start, gradients, A and F (each ≤ the storages),
    # the blocks' runs twice, the three largest, the loss's copies and sums.
    start = [Item("weights", n, _numel(sh) * z) for n, sh, z in params]
    start += [Item("buffer", n, size * k) for n, k, size in buffers] + [Item("input_ids", "input_ids", s.batch * s.seq_len * 8)]
    terms = len(graded) + 2 * len(storages) + 2 * sum(len(b) for b in blocks) + 3 + 2 * len(outputs) + 2
    return with_timeline(peak, s.optimizer, start, [(n, _numel(sh), z) for n, sh, z in graded], peak.bound,
                         (BLOCK - 1) * terms)


#: The settings whose every value the peak's cross-check covers (checkpointing both ways: the bound counts every
#: storage of a block's whole replay, which a non-reentrant recomputation that stops early only makes less of;
#: attention both ways: tests/crosscheck/test_peak_engine.py draws SDPA steps too).
_PEAK_SETTINGS = ("batch", "seq_len", "dtype", "optimizer", "checkpointing", "reentrant", "attention")


def compute(inv: Inventory, s: Settings, plan: Any = None) -> Costs:
    """The exact figures of one training step of ``inv`` (with ``plan``'s LoRA or freezing) under ``s`` (its
    attention ``default`` resolved for the class: :func:`with_attention`)."""
    if s.attention == "default":
        return with_attention(inv, s, lambda chosen: compute(inv, chosen, plan))
    sim, outputs = simulate(inv, s, plan)
    itemsize = DTYPES[s.dtype]
    params, graded = _parameters(inv, plan, itemsize, sim.used)
    if not graded or not any(o.grad for o in outputs):
        raise CalcError("costs_nothing_trainable")
    named, named_graded = _named_parameters(inv, plan, itemsize, sim.used)
    out = Costs(
        s,
        forward=sim.forward,
        backward=sim.backward,
        weights=sum(_numel(shape) * size for shape, size in params),
        gradients=sum(_numel(shape) * size for shape, size in graded),
        optimizer=optimizer_bytes(s.optimizer, graded),
        activations=sim.activations,
        peak=_peak(inv, s, sim, outputs, named, named_graded, plan),
        sdpa_dropout=sdpa_dropout(inv, s),
        sdpa_math=sim.sdpa_math_ran,
    )
    figures = {"FLOPs": out.forward + out.backward, "memory": out.memory_total}  # each part ≤ its sum
    for key, value in figures.items():
        if value > MAX_FIGURE:
            raise CalcError("costs_too_large", key=key, value=f"{value:,}")
    return out


def _op_by_op(inv: Inventory, s: Settings, plan: Any, params: Sequence[tuple[str, tuple[int, ...], int]],
              graded: Sequence[tuple[str, tuple[int, ...], int]], buffers: Sequence[tuple[str, int, int]]) -> Peak | None:
    """The peak worked out op by op (:mod:`.lifetime`) when the family's program is modelled so (BERT's classes,
    frozen parameters or not): the program run again on :class:`~.lifetime.LiveSim`; None when it is not."""
    from .lifetime import SCALAR, live_peak
    from .peak import BLOCK, optimizer_peak, rounded, with_timeline

    if s.optimizer not in ("adamw", "sgd", "sgd-momentum") or not graded:
        return None
    found = lifetime_timeline(inv, s, plan, params, graded, buffers)
    if found is None:
        return None
    timeline, start = found
    named = [(name, _numel(shape), size) for name, shape, size in graded]
    # a .grad keeping a larger storage than its parameter's (MobileBERT's MLM head): live through the optimizer step;
    # 0 for a .grad viewing a storage another's keeps (counted once, there)
    larger = {name: timeline.grads[name] for name, n, size in named
              if timeline.grads.get(name, n * size) > n * size or timeline.grads.get(name) == 0}
    optimizer = None if s.optimizer == "sgd" else optimizer_peak(s.optimizer, start, named, larger)
    peak = live_peak(timeline, optimizer, s.optimizer == "sgd")
    if peak is None:
        return None
    # The forward (and the loss) as one bound, the backward and the optimizer step exact. Rounding to 512 adds at
    # most 511 bytes to each storage the forward's and the loss's figures count (the start apart).
    loss_512 = sum(rounded(i.bytes) for i in start) + rounded(SCALAR)  # what the rounded ledger leaves out
    replayed = timeline.forward is not None and timeline.loss is not None  # the forward and the loss exact too
    forward = (timeline.forward.trace + timeline.loss.trace) if replayed else ()
    return with_timeline(peak, s.optimizer, start, named, max(timeline.forward_bound, timeline.loss_bound),
                         (BLOCK - 1) * timeline.storages, timeline.trace, loss_512, forward, larger)


def lifetime_timeline(inv: Inventory, s: Settings, plan: Any, params: Sequence[tuple[str, tuple[int, ...], int]],
                      graded: Sequence[tuple[str, tuple[int, ...], int]],
                      buffers: Sequence[tuple[str, int, int]]) -> tuple[Any, list[Any]] | None:
    """The step replayed op by op (:func:`.lifetime.run_step`): its :class:`~.lifetime.Timeline` and the storages
    live from the start; None where the lifetime simulator does not model it."""
    from .lifetime import LiveSim, run_step
    from .peak import Item

    for name in s.__dataclass_fields__:  # a setting the lifetime simulator does not model (autocast...)
        if name not in _LIFETIME_SETTINGS and getattr(s, name) != s.__dataclass_fields__[name].default:
            return None
    trains, lora = _trainability(inv, plan)
    sim = LiveSim(inv, DTYPES[s.dtype], trains, lora, s.checkpointing)
    sim.reentrant = s.reentrant
    sim.attention = s.attention  # SDPA: LiveSim.sdpa, the flash kernel's node
    if s.autocast is not None:  # mixed precision: LiveSim's autocast copies (lowered, weight_copy)
        sim.lower = AUTOCAST[s.autocast]
    outputs = cost_model(inv).program(sim, inv, s.batch, s.seq_len)
    start = [Item("weights", name, _numel(shape) * size) for name, shape, size in params]
    start += [Item("buffer", name, n * size) for name, n, size in buffers]
    start.append(Item("input_ids", "input_ids", s.batch * s.seq_len * 8))
    # The graph names a parameter by the inventory's name (a LoRA factor by its module's + ".lora_A.weight"); the
    # plan by peft's (base_model.model.…).
    engine_name = {}
    for t in (plan.tensors if plan is not None else ()):
        factor = ".lora_A.weight" if ".lora_A." in t.name else ".lora_B.weight"
        engine_name[t.name] = t.source + factor if t.kind == "lora" else t.source
    timeline = run_step(sim, outputs, start, [engine_name.get(name, name) for name, _, _ in graded])
    if timeline is None:
        return None
    # each .grad's storage by the step's own name for its parameter (the plan's)
    grads = {name: timeline.grads[engine_name.get(name, name)] for name, _, _ in graded
             if engine_name.get(name, name) in timeline.grads}
    return replace(timeline, grads=grads), start


#: The settings whose every value the lifetime simulator models (another one away from its default, e.g. mixed
#: precision, leaves the peak to :func:`.peak.step_peak`); SDPA is :meth:`.lifetime.LiveSim.sdpa`.
_LIFETIME_SETTINGS = ("batch", "seq_len", "dtype", "optimizer", "checkpointing", "reentrant", "attention", "autocast")
