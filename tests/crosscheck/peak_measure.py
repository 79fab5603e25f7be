"""The independent side of the peak cross-check: live memory through one step, measured in PyTorch itself.

Issue 32 defines the peak of a training step (or of an inference forward) as the
largest sum, at any moment, of the bytes of live tensor storages, as a
``TorchDispatchMode`` sees them: a storage is live from the operation that returns
it until CPython frees it; parameters, buffers and ``input_ids`` are live from the
start; a storage is counted once however many views share it. :class:`LiveBytes`
is that definition as code, with what the engine will be compared against: the
phase of the peak, the storages live at it (each named: a parameter, a gradient,
an optimizer state, or the operation that made it) and the timeline (one sample
per operation).

Two more measures of the same step, for issue 35's references:

* :class:`LiveBytes` with ``round_to=512``: every storage rounded up to 512 bytes,
  as CUDA's caching allocator rounds a block (``kMinBlockSize``).
* PyTorch's own ``torch.distributed._tools.mem_tracker.MemTracker``. It rounds to
  512 bytes only for ``cuda`` devices; :func:`memtracker_step` makes it round on
  the CPU too (see :func:`_cuda_rounding`), so both sides measure one definition.

Both run on fake tensors too (``fake=True``: ``FakeTensorMode``, shapes without
memory), which is how the full-size figures of ``reference/PEAK.md`` are taken in
seconds: a fake storage has no address, so :class:`LiveBytes` keys it by the
storage object itself (``key="storage"``); on real tensors the two keys agree
(``test_peak_reference.py`` checks it).

Nothing here imports ``calculator``.
"""
from __future__ import annotations

import contextlib
import math
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map_only

from .framework import _no_values_to_initialize

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
PHASES = ("start", "forward", "loss", "backward", "optimizer", "end")


def _op_name(func: Any) -> str:
    """``aten.mm`` for ``aten.mm.default``: the overload packet's name, which is what a reader recognises."""
    return str(getattr(func, "overloadpacket", func))


class LiveBytes(TorchDispatchMode):
    """Issue 32's ``LiveBytes``: ``peak`` = max over time of the sum of live storages' bytes.

    ``start``: tensors live from the start (parameters, buffers, ``input_ids``); none is kept referenced here, so
    pass a temporary list: a start storage the step frees (a replaced buffer) is then freed when CPython frees it.
    ``round_to``: each storage's bytes rounded up to a multiple (512 = CUDA's block).
    ``key``: ``"data_ptr"`` (the issue's: a storage is its address) or ``"storage"``
    (the storage object itself, for fake tensors, which have no address).

    Each storage also gets a serial number when it is first seen, so that a storage
    freed and another allocated at the same address are two items (the issue's
    guard ``self.live.get(key) == n`` made exact), and an event log (allocated /
    freed, by serial) from which the live set at the peak is rebuilt afterwards.
    """

    def __init__(self, start=(), round_to: int = 1, key: str = "data_ptr"):
        super().__init__()
        self.round_to = round_to
        self.key = key
        self.live: dict[Any, tuple[int, int]] = {}  # key -> (bytes, serial)
        self.now = 0
        self.peak = 0
        self.phase = "start"
        self.peak_phase = "start"
        self.peak_op = ""
        self.peak_event = 0  # events[:peak_event] is the history up to the peak
        self.events: list[tuple[int, int]] = []  # (+serial | -serial, bytes)
        self.made_by: dict[int, str] = {}  # serial -> the op that returned it ("start" for the initial set)
        self.serial_of: dict[Any, int] = {}
        self.timeline: list[tuple[str, int]] = []  # (op, live bytes after it), one per dispatched op
        self.phase_starts: dict[str, int] = {}  # phase -> index in timeline where it starts
        self.phase_live: dict[str, int] = {}
        self.phase_events: dict[str, int] = {}
        self._serial = 0
        self._op = "start"
        self._keep: list[Any] = []  # fake storages keyed by identity: kept in a weak map below
        for t in start:
            self.track(t)

    def set_phase(self, phase: str) -> None:
        self.phase = phase
        self.phase_starts.setdefault(phase, len(self.timeline))
        self.phase_live.setdefault(phase, self.now)  # live bytes as the phase begins (the last phase's end)
        self.phase_events.setdefault(phase, len(self.events))

    def _bytes(self, n: int) -> int:
        return math.ceil(n / self.round_to) * self.round_to

    def _key(self, s: torch.UntypedStorage) -> Any:
        return s.data_ptr() if self.key == "data_ptr" else id(s)

    def track(self, t: torch.Tensor) -> None:
        s = t.untyped_storage()
        raw = s.nbytes()
        key = self._key(s)
        if raw == 0 or key in self.live:
            return
        n = self._bytes(raw)
        self._serial += 1
        serial = self._serial
        self.live[key] = (n, serial)
        self.serial_of[key] = serial
        self.made_by[serial] = self._op
        self.events.append((serial, n))
        self.now += n
        if self.now > self.peak:
            self.peak = self.now
            self.peak_phase = self.phase
            self.peak_op = self._op
            self.peak_event = len(self.events)

        def gone(key=key, serial=serial, n=n) -> None:
            if self.live.get(key, (0, 0))[1] == serial:
                del self.live[key]
                self.now -= n
                self.events.append((-serial, n))

        weakref.finalize(s, gone)

    def storage_serial(self, t: torch.Tensor) -> int | None:
        """The serial of ``t``'s storage if it is live (to name it afterwards: a gradient, a state)."""
        entry = self.live.get(self._key(t.untyped_storage()))
        return None if entry is None else entry[1]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self._op = _op_name(func)
        tree_map_only(torch.Tensor, self.track, out)
        self.timeline.append((self._op, self.now))
        return out

    def live_at_peak(self) -> dict[int, int]:
        """serial -> bytes of every storage live at the (first) moment of the peak, rebuilt from the event log."""
        live = self.live_at(self.peak_event)
        assert sum(live.values()) == self.peak
        return live

    def live_at(self, event: int) -> dict[int, int]:
        """serial -> bytes of every storage live after ``events[:event]`` (``phase_events[p]``: as phase p begins)."""
        live: dict[int, int] = {}
        for serial, n in self.events[:event]:
            if serial > 0:
                live[serial] = n
            else:
                live.pop(-serial, None)
        return live


@dataclass
class Step:
    """One step's options: what the engine will take as its settings.

    ``attention``: "eager", "sdpa" (attention dropout set to 0: PyTorch's fused CPU kernel) or
    "default" (what transformers picks for the class). ``dtype``: the model cast. ``autocast``:
    ``torch.autocast(device, dtype=torch.bfloat16)`` around the forward (weights stay as cast); "fp16" for
    float16 (``benchmarks/gpu_check.py``'s CUDA runs). ``device``: "cpu" (the definition) or "cuda".
    ``checkpointing``: False, "non-reentrant" (transformers 5.23's default) or "reentrant".
    ``optimizer``: as the existing step (costs_measure.measure), ``foreach`` passed to it when
    not None (True is what CUDA runs by default). ``plan``: "none", "freeze" (``freeze``:
    costs_measure.freeze's arguments) or "lora" (``lora``: costs_measure.lora's settings).
    """

    model_type: str
    architecture: str
    config: dict[str, Any]
    batch: int = 1
    seq_len: int = 4
    attention: str = "eager"
    dtype: str = "fp32"
    autocast: bool | str = False
    checkpointing: bool | str = False
    optimizer: str = "adamw"
    foreach: bool | None = None
    plan: str = "none"
    freeze: tuple[bool, int, bool] = (False, 0, False)
    lora: dict[str, Any] = field(default_factory=dict)
    pooler: bool | None = None
    inference: bool = False
    #: 1: the issue's span. 2: the reader-review's (optimizer.zero_grad() between, set_to_none as PyTorch's
    #: default): the second forward runs with the optimizer state live and no gradients.
    steps: int = 1
    device: str = "cpu"


@dataclass
class PeakResult:
    peak: int
    phase: str
    op: str
    #: what is live at the peak: (name, bytes), largest first. A name is "param:<name>", "buffer:<name>",
    #: "grad:<name>", "<optimizer state>:<name>", "input_ids", or "act:<op>" for what an op returned.
    at_peak: list[tuple[str, int]]
    timeline: list[tuple[str, int]]
    phase_starts: dict[str, int]
    phase_live: dict[str, int]  # live bytes as each phase begins ("loss": the forward's end)
    attention: str  # the implementation the model ran with
    end: int  # live bytes when the span ends

    def by_kind(self) -> dict[str, int]:
        """Bytes at the peak by kind (param, buffer, grad, optimizer state, input_ids, act)."""
        kinds: dict[str, int] = {}
        for name, n in self.at_peak:
            kind = name.split(":", 1)[0]
            kinds[kind] = kinds.get(kind, 0) + n
        return kinds


def build_model(step: Step):
    """The class from the config, as costs_measure.make_model builds it (seed 0, cast, train mode), with the
    attention implementation chosen; for "sdpa" every attention-dropout key of the config set to 0."""
    import transformers

    torch.manual_seed(0)
    config = dict(step.config)
    config.pop("model_type", None)
    config.pop("architectures", None)
    cls = getattr(transformers, step.architecture)
    if step.attention == "sdpa":
        if not getattr(cls, "_supports_sdpa", False):
            raise ValueError(f"{step.architecture} has no SDPA attention")
        for key in ("attention_probs_dropout_prob", "attention_dropout"):
            config[key] = 0.0
    cfg = transformers.AutoConfig.for_model(step.model_type, **config)
    kwargs = {} if step.pooler is None else {"add_pooling_layer": step.pooler}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if step.attention != "default":
            cfg._attn_implementation = step.attention
        with _no_fake_values() if _in_fake_mode() else contextlib.nullcontext():
            model = cls(cfg, **kwargs)
    if step.dtype != "fp32":
        if _in_fake_mode():
            _cast_fake(model, DTYPES[step.dtype])
        else:
            model.to(DTYPES[step.dtype])
    if step.device != "cpu":
        model.to(step.device)
    model.train()
    return model


@contextlib.contextmanager
def _no_fake_values():
    """Weight initialisers left out while a model is built on fake tensors: they have no values to draw, and
    ``trunc_normal_`` (ModernBERT's) asks whether any value fell outside its bounds, which a fake tensor
    cannot answer. torch's functions as ``framework._no_values_to_initialize`` replaces them, and the
    originals transformers keeps in its own table (``TORCH_INIT_FUNCTIONS``) too."""
    from transformers import initialization

    table = initialization.TORCH_INIT_FUNCTIONS
    saved = dict(table)
    try:
        for name in table:
            table[name] = lambda tensor, *args, **kwargs: tensor
        with _no_values_to_initialize():
            yield
    finally:
        table.update(saved)


@contextlib.contextmanager
def _fake_adapter_moves():
    """peft moves each new adapter to its base layer's device and dtype (``Module.to``), which on fake tensors swaps
    the parameters and fails (a fake tensor has a weak reference). Where a move changes nothing (every parameter
    and buffer already on that device, in that dtype: a float32 model on the CPU) it returns the module as
    ``Module.to`` would, so a LoRA step can be measured on fake tensors; any other move runs as PyTorch writes it."""
    original = torch.nn.Module.to

    def to(self, *args, **kwargs):
        device, dtype, _, _ = torch._C._nn._parse_to(*args, **kwargs)
        tensors = [*self.parameters(), *self.buffers()]
        if all((device is None or t.device == device)
               and (dtype is None or t.dtype == dtype or not t.is_floating_point()) for t in tensors):
            return self
        return original(self, *args, **kwargs)

    torch.nn.Module.to = to
    try:
        yield
    finally:
        torch.nn.Module.to = original


def _in_fake_mode() -> bool:
    from torch._guards import active_fake_mode

    return active_fake_mode() is not None


def _cast_fake(model, dtype) -> None:
    """``model.to(dtype)`` for fake parameters, which ``Module._apply`` cannot swap: every floating parameter and
    buffer replaced by its cast, tied tensors kept tied (one cast per tensor)."""
    done: dict[int, Any] = {}
    for module in model.modules():
        for name, p in list(module._parameters.items()):
            if p is not None and p.is_floating_point():
                if id(p) not in done:
                    done[id(p)] = torch.nn.Parameter(p.detach().to(dtype), requires_grad=p.requires_grad)
                module._parameters[name] = done[id(p)]
        for name, b in list(module._buffers.items()):
            if b is not None and b.is_floating_point():
                if id(b) not in done:
                    done[id(b)] = b.to(dtype)
                module._buffers[name] = done[id(b)]


def _optimizer(step: Step, params):
    extra = {} if step.foreach is None else {"foreach": step.foreach}
    return {
        "adamw": lambda: torch.optim.AdamW(params, **extra),
        "sgd": lambda: torch.optim.SGD(params, lr=0.01, **extra),
        "sgd-momentum": lambda: torch.optim.SGD(params, lr=0.01, momentum=0.9, **extra),
        "adafactor": lambda: torch.optim.Adafactor(params, **extra),
    }[step.optimizer]()


def prepare(step: Step):
    """(model, hf_model, input_ids) with the plan and checkpointing applied."""
    from .costs_measure import freeze, lora

    model = build_model(step)
    hf_model = model
    if step.plan == "freeze":
        freeze(model, *step.freeze)
    elif step.plan == "lora":
        with _fake_adapter_moves() if _in_fake_mode() else contextlib.nullcontext():
            model = lora(model, step.lora)
    if step.checkpointing:
        reentrant = step.checkpointing == "reentrant"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hf_model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": reentrant})
    torch.manual_seed(1)
    ids = torch.randint(0, hf_model.config.get_text_config().vocab_size, (step.batch, step.seq_len)).to(step.device)
    return model, hf_model, ids


def autocast_context(step: Step):
    """``torch.autocast`` around the forward when the step asks for it (bf16 unless "fp16"), else nothing."""
    if not step.autocast:
        return contextlib.nullcontext()
    dtype = torch.float16 if step.autocast == "fp16" else torch.bfloat16
    return torch.autocast(step.device, dtype=dtype)


def run_span(step: Step, model, ids, mode, optimizer_box: list | None = None, opt=None) -> None:
    """The issue's training span (or inference span) under ``mode`` (a dispatch mode with set_phase, or a
    MemTracker: phases are then not recorded). ``opt``: an optimizer made beforehand (else made here, before
    the span: its state is created lazily by its first ``step()``, inside the span)."""
    set_phase = getattr(mode, "set_phase", lambda phase: None)
    autocast = autocast_context(step)
    if step.inference:
        model.eval()
        with warnings.catch_warnings(), torch.no_grad(), mode:
            warnings.simplefilter("ignore")
            set_phase("forward")
            with autocast:
                out = model(input_ids=ids)
            set_phase("end")
        if optimizer_box is not None:
            optimizer_box.append(out)  # the outputs kept, as the span defines (live at its end)
        return
    if opt is None:
        opt = _optimizer(step, [p for p in model.parameters() if p.requires_grad])
    if optimizer_box is not None:
        optimizer_box.append(opt)
    with warnings.catch_warnings(), mode:
        warnings.simplefilter("ignore")
        for n in range(step.steps):
            if n:
                opt.zero_grad()
                getattr(mode, "reset_mod_stats", lambda: None)()  # MemTracker refuses a second root forward
            suffix = f"#{n + 1}" if n else ""
            set_phase("forward" + suffix)
            with autocast:
                out = model(input_ids=ids)
            set_phase("loss" + suffix)
            values = out.to_tuple() if hasattr(out, "to_tuple") else tuple(out)
            loss = sum(v.float().sum() for v in values if torch.is_tensor(v) and v.is_floating_point())
            del out, values
            set_phase("backward" + suffix)
            loss.backward()
            del loss
            set_phase("optimizer" + suffix)
            opt.step()
        set_phase("end")


def _names(mode: LiveBytes, model, ids, opt) -> dict[int, str]:
    names: dict[int, str] = {}
    for name, t in model.named_buffers():
        s = mode.storage_serial(t)
        if s is not None:
            names.setdefault(s, f"buffer:{name}")
    for name, p in model.named_parameters():
        s = mode.storage_serial(p)
        if s is not None:
            names.setdefault(s, f"param:{name}")
        if p.grad is not None:
            s = mode.storage_serial(p.grad)
            if s is not None:
                names.setdefault(s, f"grad:{name}")
    if opt is not None:
        pname = {id(p): n for n, p in model.named_parameters()}
        for p, state in opt.state.items():
            for key, v in state.items():
                if torch.is_tensor(v):
                    s = mode.storage_serial(v)
                    if s is not None:
                        names.setdefault(s, f"{key}:{pname.get(id(p), '?')}")
    s = mode.storage_serial(ids)
    if s is not None:
        names.setdefault(s, "input_ids")
    return names


def _fake_mode():
    from torch._subclasses.fake_tensor import FakeTensorMode

    return FakeTensorMode(allow_non_fake_inputs=False)


def measure_peak(step: Step, round_to: int = 1, fake: bool = False) -> PeakResult:
    """The peak of ``step`` as issue 32 defines it (``round_to=512``: each storage rounded as CUDA's blocks).

    ``fake=True`` builds and runs everything under ``FakeTensorMode`` (no memory, same shapes and ops),
    with storages keyed by identity."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with _fake_mode() if fake else contextlib.nullcontext():
            model, hf_model, ids = prepare(step)
            # The start set passed as a temporary list: LiveBytes tracks each storage and keeps no reference, so a
            # buffer the forward replaces (I-BERT's QuantAct assigns new ``x_min``/``x_max`` tensors) is freed when its
            # module drops it, as the definition says ("live ... until CPython frees it"), not held by the harness.
            mode = LiveBytes([*model.parameters(), *model.buffers(), ids], round_to=round_to,
                             key="storage" if fake else "data_ptr")
            box: list = []
            # A start storage is named for what it is at the start (a buffer the step replaces and frees: its old
            # storage is still that buffer's, not an operation's); one live at the end, for what it is then.
            names = _names(mode, model, ids, None)
            run_span(step, model, ids, mode, box)
            opt = None if step.inference else box[0]
            names.update(_names(mode, model, ids, opt))
            at_peak = sorted(((names.get(s, f"act:{mode.made_by[s]}"), n) for s, n in mode.live_at_peak().items()),
                             key=lambda item: (-item[1], item[0]))
            return PeakResult(mode.peak, mode.peak_phase, mode.peak_op, at_peak, mode.timeline, mode.phase_starts,
                              mode.phase_live,
                              hf_model.config._attn_implementation, mode.now)
    finally:
        torch.set_num_threads(threads)


@contextlib.contextmanager
def _cuda_rounding(on: bool):
    """MemTracker rounds a storage up to 512 bytes only when its device is ``cuda``; here on any device, so that
    the CPU (or fake CPU) step is measured as CUDA's allocator would hold its blocks."""
    from torch.distributed._tools import mem_tracker

    original = mem_tracker._WeakRefInfo._calculate_mem_consumed

    def rounded(self) -> int:
        mem = self.size * self.element_size
        return math.ceil(mem / mem_tracker._PYTORCH_MIN_ALLOCATE) * mem_tracker._PYTORCH_MIN_ALLOCATE

    if on:
        mem_tracker._WeakRefInfo._calculate_mem_consumed = rounded
    try:
        yield
    finally:
        mem_tracker._WeakRefInfo._calculate_mem_consumed = original


def memtracker_step(step: Step, fake: bool = True, rounding: bool = True) -> dict[str, int]:
    """The same span under PyTorch's MemTracker (model, optimizer and input_ids registered with
    ``track_external``, as its docstring says): the peak ("Total") and its breakdown by MemTracker's kinds.

    The optimizer is created before the span (its state is made lazily in ``step()``, inside it)."""
    from torch.distributed._tools.mem_tracker import MemTracker

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with _fake_mode() if fake else contextlib.nullcontext(), _cuda_rounding(rounding):
            model, _hf, ids = prepare(step)
            tracker = MemTracker()
            trainable = [p for p in model.parameters() if p.requires_grad]
            opt = None if step.inference else _optimizer(step, trainable)
            tracker.track_external(model, ids, *([opt] if opt is not None else []))
            run_span(step, model, ids, tracker, [], opt=opt)
            (snap,) = tracker.get_tracker_snapshot("peak").values()
            return {str(getattr(k, "value", k)): v for k, v in snap.items()}
    finally:
        torch.set_num_threads(threads)


def backward_ledger(step: Step) -> list[dict[str, Any]]:
    """The backward node by node, as the autograd engine runs it: for each node (in order), the bytes live
    when it starts, what its own operations allocated and freed (its gradients out, temporaries, the incoming
    gradient it consumed), and what was freed after it returned and before the next node started: the
    engine's ``release_variables()`` of its saved tensors (freed there unless another node or a live
    output still holds them) and the node itself when nothing refers to it any more.

    Hooks on every node of the graph (``register_prehook`` / ``register_hook``) mark the event log of
    :class:`LiveBytes`; nothing else changes in the step."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        model, _hf, ids = prepare(step)
        mode = LiveBytes([*model.parameters(), *model.buffers(), ids])
        marks: list[tuple[str, str, int, int]] = []  # (pre|post, node name, event index, now)
        autocast = autocast_context(step)
        with warnings.catch_warnings(), mode:
            warnings.simplefilter("ignore")
            with autocast:
                out = model(input_ids=ids)
            values = out.to_tuple() if hasattr(out, "to_tuple") else tuple(out)
            loss = sum(v.float().sum() for v in values if torch.is_tensor(v) and v.is_floating_point())
            del out, values
            seen: set[int] = set()
            stack = [loss.grad_fn]
            while stack:
                node = stack.pop()
                if node is None or id(node) in seen:
                    continue
                seen.add(id(node))
                name = node.name()
                node.register_prehook(lambda g, name=name: marks.append(("pre", name, len(mode.events), mode.now)))
                node.register_hook(lambda gi, go, name=name: marks.append(("post", name, len(mode.events), mode.now)))
                stack.extend(fn for fn, _ in node.next_functions)
            del node, stack
            start = (len(mode.events), mode.now)
            loss.backward()
            del loss
            end = (len(mode.events), mode.now)
        ledger = []
        for i in range(0, len(marks), 2):  # one thread: each node's prehook is followed by its own hook
            pre, post = marks[i], marks[i + 1]
            assert (pre[0], post[0], pre[1]) == ("pre", "post", post[1]), (pre, post)
            nxt = marks[i + 2][2] if i + 2 < len(marks) else end[0]
            own = mode.events[pre[2]:post[2]]
            after = mode.events[post[2]:nxt]
            ledger.append({
                "node": pre[1], "live_before": pre[3],
                "allocated": sum(n for s, n in own if s > 0), "freed_inside": sum(n for s, n in own if s < 0),
                "freed_after": sum(n for s, n in after if s < 0), "allocated_after": sum(n for s, n in after if s > 0),
            })
        del start
        return ledger
    finally:
        torch.set_num_threads(threads)
