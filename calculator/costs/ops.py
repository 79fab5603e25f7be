"""A training step's operations, one method each, as PyTorch runs them: FLOPs both ways, what autograd keeps.

Each method is one aten operation (or a composite written out as PyTorch's
Python does it: ``gelu_tanh``, ``rotary``, ``softmax_float32``, ``einsum``); what
its backward keeps comes from ``derivatives.yaml``, its FLOPs from
``torch.utils.flop_counter`` (:meth:`Ops.contract` is the one rule every
product shares). Every operation appends to the tape (:class:`Row`), whose sums
are the step's figures. Nothing here knows a module's name, the inventory, the
plan or the config: :class:`calculator.costs.modules.Sim` adds those. Imports
only :mod:`.tensor` (tests/properties/test_layering.py). Standard library only.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Sequence

from ..errors import CalcError
from .tensor import (INDEX_BYTES, T, _dense, _infer, contiguous_strides, dense_strides_like, is_contiguous,
                     view_strides)


@dataclass
class Row:
    """One line of the simulator's tape: an operation (or a storage autograd keeps) and what it costs.

    ``module``: the inventory name of the module whose call ran it (``bert.encoder.layer.0.attention.self.query``),
    ``""`` for an operation a program runs between modules (attention's ``bmm``); ``op``: the aten operation as
    ``FlopCounterMode`` names it (``mm``, ``bmm``, ``convolution``), or ``save`` for a storage autograd keeps;
    ``forward``/``backward``: its FLOPs (a checkpointed block's replay lands in ``backward``); ``saved``: the
    bytes of the storage a ``save`` row keeps for the first time (a storage kept twice counts once).

    The step's totals are the tape's sums (:attr:`Sim.forward`, :attr:`Sim.backward`, :attr:`Sim.activations`),
    so a figure can be traced to the module that made it. Live memory (the next issue) extends the same tape:
    an allocation row per operation output (:meth:`Sim.new` already sees every one, with its storage id and
    bytes), and a release when the last tensor reading that storage is gone (no later row reads it and autograd
    did not save it; a saved storage dies when the backward has passed its row, walking the tape in reverse);
    the peak is the running maximum of allocations minus releases along the tape, forward then backward.
    """

    module: str
    op: str
    forward: int = 0
    backward: int = 0
    saved: int = 0
    #: A ``save`` row of a frozen weight's autocast copy (:meth:`Ops.weight_copy`): non-reentrant checkpointing's
    #: early stop does not wait for it (measured, tests/crosscheck/test_costs_autocast.py).
    frozen_copy: bool = False


class Ops:
    """The operations a family's program runs on tensors, and the tape they record (``itemsize``: the dtype's)."""

    def __init__(self, itemsize: int) -> None:
        self.itemsize = itemsize
        #: What the forward ran, in order (:class:`Row`); the figures are its sums.
        self.tape: list[Row] = []
        #: Storage id -> bytes, of every storage autograd keeps (each once).
        self.saved: dict[int, int] = {}
        #: The module whose call is running (:meth:`_in`), "" between modules.
        self.module = ""
        self.storages: dict[int, int] = {}
        self.grad_mode = True
        #: ``model.train()``; False for the inference span's ``model.eval()`` (dropout returns its input).
        self.training = True
        self._next = 0
        #: Mixed precision: autocast's lower dtype's bytes per number (2: bf16), None without autocast.
        self.lower: int | None = None
        #: autocast's cast cache (one region: the forward): a parameter's lower-precision copy, by its storage's name.
        self.cast_cache: dict[str, T] = {}
        #: Storage ids of frozen weights' autocast copies (never cached: a fresh one per use).
        self.frozen_copies: set[int] = set()
        #: The tape's length when autograd last packed a tensor for the backward (an activation, one already
        #: kept, or a parameter): non-reentrant checkpointing's recomputation stops at the block's last pack,
        #: so only the rows before it run again (:meth:`~.modules.Sim.layer`).
        self.last_pack = 0
        #: Some attention ran SDPA's math path (:meth:`sdpa_math`), not CPU's flash kernel: the answer says so.
        self.sdpa_math_ran = False
        #: The program ran a path the peak's bounds were not proven for (:meth:`no_peak`).
        self.peak_unchecked = False
        #: Why the bounds cannot count this step's storages (:meth:`refuse_peak`); None: they can.
        self.peak_refused: str | None = None
        #: The program lists autocast's copies where the bounds count them (:meth:`bounded_under_autocast`).
        self.autocast_bounded = False

    # -- the tape

    @property
    def forward(self) -> int:
        """FLOPs of the forward pass."""
        return sum(r.forward for r in self.tape)

    @property
    def backward(self) -> int:
        """FLOPs of the backward pass (with a checkpointed block's replay)."""
        return sum(r.backward for r in self.tape)

    @property
    def activations(self) -> int:
        """Bytes of the distinct storages autograd keeps in the forward."""
        return sum(r.saved for r in self.tape)

    def record(self, op: str, forward: int) -> Row:
        """A row for ``op`` run now in the current module, with its forward FLOPs (the caller adds the
        backward's to the row it gets back: only the factors that need a gradient count)."""
        row = Row(self.module, op, forward)
        self.tape.append(row)
        return row

    @contextmanager
    def _in(self, module: str) -> Iterator[None]:
        """Rows recorded inside name ``module`` (nested calls name the innermost)."""
        outer, self.module = self.module, module
        try:
            yield
        finally:
            self.module = outer

    # -- tensors

    def new(self, shape: Sequence[int], grad: bool, itemsize: int | None = None) -> T:
        """A fresh contiguous tensor (an operation's output)."""
        size = self.itemsize if itemsize is None else itemsize
        self._next += 1
        shape = tuple(shape)
        t = T(shape, contiguous_strides(shape), self._next, grad and self.grad_mode, size)
        n = 1
        for d in shape:
            n *= d
        self.storages[self._next] = n * size
        return t

    def ids(self, shape: Sequence[int]) -> T:
        """An int64 index tensor made in the forward (``input_ids``, RoBERTa's position ids, a gather)."""
        return self.new(shape, False, INDEX_BYTES)

    def buffer(self, shape: Sequence[int]) -> T:
        """A slice of a registered buffer (BERT's ``position_ids``): its storage is never counted."""
        t = self.new(shape, False, INDEX_BYTES)
        self.storages[t.storage] = 0
        return t

    def expand(self, t: T, shape: Sequence[int]) -> T:
        """``expand``: a view with stride 0 on the broadcast dimensions."""
        strides = tuple(0 if old == 1 and new != 1 else st for old, new, st in zip(t.shape, shape, t.strides))
        return T(tuple(shape), strides, t.storage, t.grad, t.itemsize)

    def save(self, t: T) -> None:
        """Autograd keeps ``t``'s storage for the backward: a ``save`` row the first time (a storage counts once)."""
        if self.grad_mode and t.storage not in self.saved:
            self.saved[t.storage] = self.storages[t.storage]
            self.tape.append(Row(self.module, "save", saved=self.storages[t.storage],
                                 frozen_copy=t.storage in self.frozen_copies))
        if t.storage not in self.frozen_copies:
            # Under autocast a frozen weight's bf16 copy, kept for the input's gradient, is not waited for by
            # non-reentrant checkpointing's early stop (measured on the amp branch): it is no pack that counts.
            self.pack()

    def pack(self) -> None:
        """Autograd packs a tensor here (what :meth:`save` keeps, or a parameter, which is no activation): only
        non-reentrant checkpointing's early stop (:attr:`last_pack`) notices the parameter's."""
        if self.grad_mode:
            self.last_pack = len(self.tape)

    def view(self, t: T, shape: Sequence[int]) -> T:
        shape = _infer(t, shape)
        strides = view_strides(t.shape, t.strides, shape)
        if strides is None:
            raise AssertionError(f"view of {t.shape} as {shape} needs a copy")
        return T(shape, strides, t.storage, t.grad, t.itemsize)

    def reshape(self, t: T, shape: Sequence[int]) -> T:
        """A view when the strides allow it, else a contiguous copy (which autograd keeps nothing for)."""
        shape = _infer(t, shape)
        strides = view_strides(t.shape, t.strides, shape)
        if strides is not None:
            return T(shape, strides, t.storage, t.grad, t.itemsize)
        return self.new(shape, t.grad, t.itemsize)

    def transpose(self, t: T, a: int, b: int) -> T:
        shape, strides = list(t.shape), list(t.strides)
        shape[a], shape[b] = shape[b], shape[a]
        strides[a], strides[b] = strides[b], strides[a]
        return T(tuple(shape), tuple(strides), t.storage, t.grad, t.itemsize)

    def heads(self, t: T, heads: int, d: int) -> T:
        """``t.view(B, L, heads, d).transpose(1, 2)``: a [B, L, heads·d] projection split into heads, [B, heads, L, d]
        (both views), as every eager attention of transformers writes it before its products."""
        return self.transpose(self.view(t, (t.shape[0], t.shape[1], heads, d)), 1, 2)

    def contiguous(self, t: T) -> T:
        return t if is_contiguous(t) else self.new(t.shape, t.grad, t.itemsize)

    def select(self, t: T, dim: int, index: int = 0) -> T:
        """``t[:, 0]``: a view without dimension ``dim``."""
        shape = t.shape[:dim] + t.shape[dim + 1:]
        strides = t.strides[:dim] + t.strides[dim + 1:]
        return T(shape, strides, t.storage, t.grad, t.itemsize)

    # -- mixed precision: torch.autocast("cpu", dtype=torch.bfloat16) around the forward (aten/src/ATen/autocast_mode.cpp)

    def _result(self, *ts: T) -> int | None:
        """The dtype's bytes of an operation autocast does not list: it runs in its inputs' dtype, promoted
        (bf16 + fp32 → fp32: the residual adds). None without autocast (the model's dtype, as before)."""
        if self.lower is None:
            return None
        return max(t.itemsize for t in ts)

    def lowered(self, t: T) -> T:
        """An input of an operation on autocast's lower-precision list (``mm``, ``addmm``, ``bmm``, ``linear``,
        ``matmul``, ``conv1d``...): ``cached_cast`` casts a float32 tensor to bf16, a fresh copy (``_to_copy``
        keeps a dense input's strides); a bf16 one passes as is. Activations are never cached (only leaves)."""
        if self.lower is None or t.itemsize != 4:
            return t
        out = self.new(t.shape, t.grad, self.lower)
        return T(t.shape, t.strides, out.storage, out.grad, out.itemsize) if _dense(t) else out

    def weight_copy(self, key: str, shape: Sequence[int], trains: bool) -> T | None:
        """A float32 parameter as a lower-precision operation reads it under autocast: a bf16 copy, which the
        operation's backward keeps (for the input's gradient) as it would keep the parameter itself; it is not
        the parameter's storage, so it counts. ``cached_cast`` caches it for the region when the parameter is a
        leaf that requires grad (a trained one: ALBERT's shared layers read one copy); a frozen one is cast
        afresh at every use. None without autocast."""
        if self.lower is None:
            return None
        if trains and key in self.cast_cache:
            return self.cast_cache[key]
        t = self.new(shape, trains, self.lower)
        if trains:
            self.cast_cache[key] = t
        else:
            self.frozen_copies.add(t.storage)
        return t

    # -- operations (what each saves is its backward formula's need, derivatives.yaml)

    def contract(self, op: str, forward: int, grads: Sequence[tuple[bool, int, T | None]],
                 kept: T | None = None) -> Row:
        """The one rule of every product (``mm``, ``addmm``, ``bmm``, ``convolution``): ``forward`` FLOPs, then
        per operand ``(needs a gradient, the FLOPs of its gradient, what that gradient's formula keeps)``.

        A matrix product's gradient for one factor multiplies by the other factor, so it keeps that one
        (derivatives.yaml: ``mm``'s ``self: mm_mat1_backward(grad, mat2, ...)``, ``mat2:
        mm_mat2_backward(grad, self, ...)``); a weight's factor is a parameter, never counted as kept, so it
        is None. ``convolution`` has one formula for input, weight and bias
        (``convolution_backward(grad, input, weight, ...)``): it keeps the input (``kept``) whenever any of
        the three needs a gradient. Nothing is kept or counted backward under no-grad (a checkpointed block's
        first run).

        Autograd packs a product's inputs (``keeps``, or the parameter a None stands for) when it builds the
        node, before the kernel runs: a non-reentrant recomputation that stops at that pack does not run the
        product again (:attr:`last_pack` is this row's index, not the tape's end)."""
        at = len(self.tape)
        row = self.record(op, forward)
        if self.grad_mode:
            if kept is not None:
                self.save(kept)
            for needed, flops, keeps in grads:
                if needed:
                    row.backward += flops
                    if keeps is not None:
                        self.save(keeps)
            packs: list[T | None] = [kept] if kept is not None else []
            packs += [keeps for needed, _, keeps in grads if needed]
            # A None stands for a parameter (packed); an autocast copy of a frozen weight is not waited for.
            if any(p is None or p.storage not in self.frozen_copies for p in packs):
                self.last_pack = at
        return row

    def mm(self, a: T, b_grad: bool, m: int, k: int, n: int, out_shape: Sequence[int], bias_grad: bool = False,
           itemsize: int | None = None, w: T | None = None) -> T:
        """``addmm``/``mm`` of ``a`` [m, k] by a weight [k, n]: keeps ``a`` if the weight trains; ``w``: the
        weight's autocast copy (:meth:`weight_copy`), kept for ``a``'s gradient (the parameter itself is not counted)."""
        flops = 2 * m * k * n
        if self.lower is not None and w is None:  # a bare ``matmul`` by a parameter's view (``weight.t()``): a
            a = self.lowered(a)  # view is never cached, so autocast copies it afresh
            w = self.new((k, n), b_grad, self.lower)
            itemsize = self.lower
        self.contract("mm", flops, ((a.grad, flops, w), (b_grad, flops, a)))
        return self.new(out_shape, a.grad or b_grad or bias_grad, itemsize)

    def product(self, a: T, b: T, flops: int, shape: Sequence[int]) -> T:
        """A matrix product of two tensors that may each need a gradient (``mm``/``bmm``): ``flops`` in the
        forward; in the backward the same again for each factor that needs a gradient, whose formula keeps
        the other factor (derivatives.yaml: ``grad.mm(mat2.t())``, ``self.t().mm(grad)``)."""
        a, b = self.lowered(a), self.lowered(b)
        self.contract("bmm" if len(shape) == 3 else "mm", flops, ((a.grad, flops, b), (b.grad, flops, a)))
        return self.new(shape, a.grad or b.grad, self.lower)

    def bmm(self, a: T, b: T) -> T:
        """``torch.matmul`` of two 4-D tensors: both reshaped to 3-D (a copy where strides demand), then ``bmm``."""
        batch = a.shape[:-2]
        nb = 1
        for d in batch:
            nb *= d
        n, k, m = a.shape[-2], a.shape[-1], b.shape[-1]
        # autocast casts matmul's operands, before its reshapes: the second first (measured; a C++ argument pack)
        b = self.lowered(b)
        a = self.lowered(a)
        a3 = self.reshape(a, (nb, n, k))
        b3 = self.reshape(b, (nb, k, m))
        out = self.product(a3, b3, 2 * nb * n * k * m, (nb, n, m))
        return self.view(out, (*batch, n, m))

    def pointwise(self, t: T) -> T:
        """An operation that keeps nothing (a product with a Python number, a copy)."""
        return self.new(t.shape, t.grad, t.itemsize)

    def add(self, a: T, b: T) -> T:
        return self.new(a.shape if a.numel >= b.numel else b.shape, a.grad or b.grad, self._result(a, b))

    def add_(self, a: T, b: T) -> T:
        """``a += b`` in place, ``b`` of ``a``'s shape (ERNIE's task embeddings): no new storage, nothing kept."""
        return T(a.shape, a.strides, a.storage, (a.grad or b.grad) and self.grad_mode, a.itemsize)

    def keep_input(self, t: T) -> T:
        """GELU, SiLU...: the backward needs the input."""
        if t.grad:
            self.save(t)
        return self.new(t.shape, t.grad, self._result(t))

    def keep_output(self, t: T, itemsize: int | None = None) -> T:
        """tanh, softmax: the backward needs the output (``itemsize``: an output of another width than the model's,
        XLM's softmax of ``scores.float()``)."""
        out = self.new(t.shape, t.grad, self._result(t) if itemsize is None else itemsize)
        if t.grad:
            self.save(out)
        return out

    def dropout(self, t: T, active: bool = True) -> T:
        """Training-mode dropout on CPU: ``input * mask`` with a mask of the input's dtype, kept for the backward.

        ``active=False``: a dropout whose probability is 0 (ALBERT's defaults), which returns its input itself, as
        every dropout does in ``model.eval()`` (:attr:`training` False).
        """
        if not active or not self.training:
            return t
        if t.grad:
            self.save(self.new(t.shape, False, self._result(t)))
        return self.new(t.shape, t.grad, self._result(t))

    def gelu_tanh(self, t: T) -> T:
        """``NewGELUActivation`` (``gelu_new``), written out in Python:
        ``0.5 * x * (1 + tanh(c * (x + 0.044715 * x**3)))``. ``pow`` keeps x, ``tanh`` its output, and the
        last product both its factors (``0.5 * x`` and ``1 + tanh``), each a new tensor."""
        size = self._result(t)
        if not t.grad:
            return self.new(t.shape, False, size)
        self.save(t)
        self.save(self.new(t.shape, True, size))  # tanh(...)
        self.save(self.new(t.shape, True, size))  # 0.5 * x
        self.save(self.new(t.shape, True, size))  # 1 + tanh(...)
        return self.new(t.shape, True, size)

    # -- the product inside a Linear (its module, LoRA around it: :meth:`.modules.Sim.linear`)

    def _linear(self, x: T, in_f: int, out_f: int, w_grad: bool, b_grad: bool, itemsize: int | None = None,
                weight: str | None = None) -> T:
        """``linear``; under autocast (``weight``: the name its cast is cached by) on bf16 copies of a float32
        input and of the weight, with a bf16 output."""
        w = None
        if self.lower is not None:
            x = self.lowered(x)
            w = self.weight_copy(weight or self.module + ".weight", (out_f, in_f), w_grad)
            itemsize = self.lower
        tokens = x.numel // in_f if in_f else 0
        flat = x if len(x.shape) == 2 else self.reshape(x, (-1, in_f))
        return self.mm(flat, w_grad, tokens, in_f, out_f, (*x.shape[:-1], out_f), b_grad, itemsize, w)

    # -- operations for longformer, big_bird

    #: The ``hidden_act`` values :meth:`activation` covers.
    ACTIVATIONS: tuple[str, ...] = ("gelu", "gelu_new", "relu")

    def as_strided(self, t: T, shape: Sequence[int], strides: Sequence[int]) -> T:
        """``as_strided``: a view with the given geometry (overlapping chunks); its backward keeps no data."""
        return T(tuple(shape), tuple(strides), t.storage, t.grad, t.itemsize)

    def pad(self, t: T, shape: Sequence[int]) -> T:
        """``nn.functional.pad`` with a constant: a new contiguous tensor; ``constant_pad_nd``'s backward
        only slices the gradient (derivatives.yaml), so nothing is kept."""
        return self.new(shape, t.grad, t.itemsize)

    def mask(self, shape: Sequence[int]) -> T:
        """A bool tensor made in the forward (a comparison, ``.bool()``): one byte a number, no gradient."""
        return self.new(shape, False, 1)

    def save_if(self, t: T, needed: bool) -> None:
        """Keep ``t`` when the operation's input needs a gradient (``where``'s and ``masked_fill``'s condition)."""
        if needed:
            self.save(t)

    def mul(self, a: T, b: T, shape: Sequence[int]) -> T:
        """A broadcasting product of two tensors (``einsum`` with a contraction of size 1 becomes one):
        ``mul``'s backward needs each factor for the other's gradient (derivatives.yaml), and no FLOPs count."""
        if self.grad_mode:
            if a.grad:
                self.save(b)
            if b.grad:
                self.save(a)
        return self.new(shape, a.grad or b.grad, self._result(a, b))

    def activation(self, name: str, t: T) -> T:
        """``ACT2FN[name]`` for the activations covered: ``gelu`` keeps its input, ``gelu_new`` is written out
        (:meth:`gelu_tanh`), ``relu`` keeps its output (``threshold_backward`` reads the result)."""
        if name == "gelu":
            return self.keep_input(t)
        if name == "gelu_new":
            return self.gelu_tanh(t)
        if name == "relu":
            return self.keep_output(t)
        raise CalcError("costs_hidden_act", value=name, supported=list(self.ACTIVATIONS))

    def softmax_float32(self, t: T) -> T:
        """``softmax(x, dim, dtype=torch.float32)``: the input cast first (a copy that keeps nothing), then
        ``_softmax``, whose backward needs its float32 output."""
        if t.itemsize != 4:
            t = self.new(t.shape, t.grad, 4)
        out = self.new(t.shape, t.grad, 4)
        if t.grad:
            self.save(out)
        return out

    # -- operations for mobilebert, squeezebert, convbert, funnel

    def concat(self, parts: Sequence[T], dim: int) -> T:
        """``torch.cat``: a new tensor; its backward only slices the gradient (``cat``: nothing kept)."""
        shape = list(parts[0].shape)
        shape[dim] = sum(p.shape[dim] for p in parts)
        return self.new(shape, any(p.grad for p in parts), parts[0].itemsize)

    def matmul_by(self, x: T, m: T) -> T:
        """``x.matmul(m)`` of an [..., k] activation by a computed [k, n] matrix: folded into one ``mm``.

        ``mm`` (derivatives.yaml): ``self``'s gradient needs ``mat2``, ``mat2``'s needs
        ``self``; ``m`` is a tensor of the forward here (not a parameter), so it is counted.
        """
        k, n = m.shape
        flat = self.reshape(x, (-1, k))
        rows = flat.shape[0]
        return self.product(flat, m, 2 * rows * k * n, (*x.shape[:-1], n))

    def _conv1x1(self, x: T, in_per_group: int, out_c: int, w_grad: bool, b_grad: bool,
                 itemsize: int | None = None, kernel: int = 1, weight: str | None = None, w: T | None = None) -> T:
        """A stride-1 ``convolution`` whose padding keeps the length (kernel 1, or odd with padding k // 2).
        ``w``: the weight's bf16 copy under autocast, made by the caller (the lifetime simulator casts in order)."""
        batch, in_c, length = x.shape
        flops = 2 * batch * length * out_c * in_per_group * kernel
        if self.lower is not None:  # autocast: conv1d on bf16 copies; convolution_backward keeps input and weight
            x = self.lowered(x)
            if w is None:
                w = self.weight_copy(weight or self.module + ".weight", (out_c, in_per_group, kernel), w_grad)
            itemsize = self.lower
        self.contract("convolution", flops, ((x.grad, flops, None), (w_grad, 2 * batch * length * out_c * in_c * kernel, None)),
                      x if (x.grad or w_grad or b_grad) else None)
        if w is not None and (x.grad or w_grad or b_grad) and self.grad_mode:
            self.save(w)
        return self.new((batch, out_c, length), x.grad or w_grad or b_grad, itemsize)

    def mul_like(self, a: T, b: T) -> T:
        """``a * b`` of two activations of one shape (``mul.Tensor``: each factor kept for the other's
        gradient). The output takes ``a``'s layout (TensorIterator orders dimensions by the first input)."""
        if b.grad:
            self.save(a)
        if a.grad:
            self.save(b)
        out = self.new(a.shape, a.grad or b.grad, self._result(a, b))
        strides = a.strides if _dense(a) else out.strides
        return T(out.shape, strides, out.storage, out.grad, out.itemsize)

    def permute(self, t: T, dims: Sequence[int]) -> T:
        """``permute``: a view with the dimensions reordered."""
        return T(tuple(t.shape[d] for d in dims), tuple(t.strides[d] for d in dims), t.storage, t.grad, t.itemsize)

    def narrow(self, t: T, dim: int, length: int, step: int = 1) -> T:
        """A slice ``t[..., start:start + length·step:step, ...]`` along ``dim``: a view (its offset does not matter)."""
        shape, strides = list(t.shape), list(t.strides)
        shape[dim] = length
        strides[dim] *= step
        return T(tuple(shape), tuple(strides), t.storage, t.grad, t.itemsize)

    def einsum(self, spec: str, a: T, b: T) -> T:
        """``torch.einsum`` of two operands as ATen runs it (``sumproduct_pair``; a plain product when every
        summed label has size 1): both are permuted to the
        output's labels followed by the summed ones, then split into the labels both have (not summed,
        size > 1: the batch), those of the left only, the summed, those of the right only; the left is
        reshaped to [batch, left, summed], the right to [batch, summed, right] (copies where strides
        demand), one ``bmm`` (each kept for the other's gradient), its output viewed back."""
        inputs, out_labels = spec.split("->")
        la, lb = inputs.split(",")
        size = {c: d for c, d in zip(la, a.shape)}
        size.update({c: d for c, d in zip(lb, b.shape)})
        summed = [c for c in la + lb if c not in out_labels and size[c] != 1]  # size-1 ones are squeezed away
        summed = list(dict.fromkeys(summed))
        if not summed:  # nothing left to contract: einsum multiplies (mul.Tensor keeps each for the other)
            order = list(out_labels)  # each operand permuted and unsqueezed to the output's labels, then multiplied

            def aligned(t: T, labels: str) -> T:
                shape = tuple(size[c] if c in labels else 1 for c in order)
                strides = tuple(t.strides[labels.index(c)] if c in labels else 1 for c in order)
                return self.einsum_operand(t, labels, order, T(shape, strides, t.storage, t.grad, t.itemsize))
            return self.einsum_mul(aligned(a, la), aligned(b, lb), tuple(size[c] for c in out_labels))
        batch: list[str] = []
        left: list[str] = []
        right: list[str] = []
        for c in out_labels:
            sl = c in la and size[c] != 1
            sr = c in lb and size[c] != 1
            (batch if sl and sr else left if sl else right).append(c)

        def arranged(t: T, labels: str, order: list[str]) -> T:
            shape = tuple(size[c] if c in labels else 1 for c in order)
            strides = tuple(t.strides[labels.index(c)] if c in labels else 1 for c in order)
            return self.einsum_operand(t, labels, order, T(shape, strides, t.storage, t.grad, t.itemsize))

        def prod(labels: list[str]) -> int:
            n = 1
            for c in labels:
                n *= size[c]
            return n

        nb, nl, nk, nr = prod(batch), prod(left), prod(summed), prod(right)
        a3 = self.reshape(arranged(a, la, batch + left + summed + right), (nb, nl, nk))
        b3 = self.reshape(arranged(b, lb, batch + summed + right + left), (nb, nk, nr))
        # Under autocast ``bmm`` casts its float32 operands after einsum's permutes and reshapes: the second first
        # (a C++ argument pack, as :meth:`bmm`'s), a view of a parameter never cached (measured, Funnel's r_kernel).
        b3 = self.lowered(b3)
        a3 = self.lowered(a3)
        out = self.product(a3, b3, 2 * nb * nl * nk * nr, (nb, nl, nr))
        order = batch + left + right
        stride, strides = 1, {}
        for c in reversed(order):
            strides[c] = stride
            stride *= size[c]
        return self.einsum_result(out, order, out_labels, T(tuple(size[c] for c in out_labels),
                                                             tuple(strides[c] for c in out_labels), out.storage,
                                                             out.grad, out.itemsize))

    def einsum_mul(self, a: T, b: T, shape: tuple[int, ...]) -> T:
        """:meth:`einsum` without a contraction (every summed label of size 1): ``a * b`` broadcast to ``shape``, a
        new contiguous tensor; ``mul.Tensor`` keeps each factor for the other's gradient."""
        if b.grad:
            self.save(a)
        if a.grad:
            self.save(b)
        return self.new(shape, a.grad or b.grad, self._result(a, b))  # autocast: ``mul`` promotes

    def einsum_operand(self, t: T, labels: str, order: list[str], view: T) -> T:
        """An operand of :meth:`einsum` permuted (and unsqueezed) to ``order``: the view itself (the lifetime
        simulator adds its node)."""
        return view

    def einsum_result(self, out: T, order: list[str], labels: str, view: T) -> T:
        """:meth:`einsum`'s ``bmm`` output ``out`` viewed back to the output's labels: the view itself (the
        lifetime simulator adds its node)."""
        return view

    def split_where(self, condition: T, bias: T, shape: Sequence[int]) -> T:
        """``torch.where(condition, same.expand(shape), diff.expand(shape))`` of the two columns ``torch.split``
        makes of ``bias`` (Funnel's token-type scores): a new tensor; the backward needs only the condition."""
        column = T(bias.shape[:-1] + (1,), bias.strides, bias.storage, bias.grad, bias.itemsize)
        return self.where(condition, self.expand(column, shape))

    def slice_dim(self, t: T, dim: int, length: int, step: int = 1) -> T:
        """A slice along ``dim`` that its gradient reaches (:meth:`narrow`'s view; ``SliceBackward0`` in the
        lifetime simulator)."""
        return self.narrow(t, dim, length, step)

    def pad_end(self, t: T, shape: Sequence[int]) -> T:
        """Funnel's ``pad`` of the repeated rows (:meth:`pad`; its node in the lifetime simulator)."""
        return self.pad(t, shape)

    def keep_other(self, t: T, other: T) -> T:
        """``t *= other`` in place with ``other`` needing no gradient (Funnel's ``cls_mask``): ``mul_`` keeps
        ``other`` for ``t``'s gradient."""
        if t.grad:
            self.save(other)
        return t

    def where(self, condition: T, a: T) -> T:
        """``torch.where(condition, x, y)``: the backward needs only the condition (kept)."""
        if a.grad:
            self.save(condition)
        return self.new(a.shape, a.grad, self._result(a))

    def pool_pairs(self, x: T, mode: str) -> T:
        """``avg_pool2d`` / ``max_pool2d`` over pairs of positions (kernel and stride (2, 1), ceil_mode) of a
        [B, 1, L, D] tensor: the mean keeps its input; the max its input and the int64 indices."""
        b, one, n, d = x.shape
        out_n = (n + 1) // 2
        if x.grad:
            self.save(x)
            if mode == "max":
                self.save(self.new((b, one, out_n, d), False, INDEX_BYTES))
        return self.new((b, one, out_n, d), x.grad)

    # -- operations for deberta, deberta-v2, modernbert

    def constant(self, shape: Sequence[int], itemsize: int, op: str = "") -> T:
        """A tensor built in the forward that never needs a gradient (an attention mask of ones, a 0-dim scale);
        ``op``: the aten operation that makes it (what the lifetime simulator names it by)."""
        return self.new(shape, False, itemsize)

    def frame_keeps(self, *ts: T) -> None:
        """The tensors every checkpointed layer from here reads besides its input: kept by non-reentrant
        checkpointing's frames. Only the lifetime simulator uses it."""

    def saved_with(self, out: T, *ts: T) -> None:
        """``ts`` saved by the nodes of a graph the loss never reaches, built on ``out`` (BigBird's assembled
        probabilities: the ``scatter_`` indices): counted as saved; the lifetime simulator frees them with ``out``."""
        for t in ts:
            self.save(t)

    def plus_scalar(self, t: T) -> T:
        """``t + 0`` (DeBERTa's ``score += x`` while ``score`` is still the number 0): a new tensor, nothing kept."""
        return self.new(t.shape, t.grad, t.itemsize)

    def op_with_constant(self, t: T, other: T, op: str = "aten.mul") -> T:
        """``t * other``, ``t / other``, ``t.masked_fill(other, v)`` with ``other`` needing no gradient.

        derivatives.yaml: ``mul.Tensor`` (self: ``grad * other``), ``div.Tensor`` (self: ``grad / other``),
        ``masked_fill.Scalar`` (self: ``grad.masked_fill(mask, 0)``): the backward for ``t`` keeps ``other``.
        ``op``: the aten operation (``aten.div`` for a division), what the lifetime simulator names it by.
        """
        if t.grad:
            self.save(other)
        return self.new(t.shape, t.grad, self._result(t))

    def divide_by_scale(self, t: T) -> T:
        """``t / scale.to(t.dtype)`` with a fresh 0-dim tensor (DeBERTa's ``scaled_size_sqrt``): keeps that scalar."""
        return self.op_with_constant(t, self.constant((), self._result(t) or self.itemsize))

    def gather(self, t: T, index: T, shape: Sequence[int]) -> T:
        """``torch.gather(t, -1, index)``: derivatives.yaml's ``gather_backward(grad, self, dim, index)`` keeps
        ``self`` and ``index``."""
        if t.grad:
            self.save(t)
            self.save(index)
        return self.new(shape, t.grad, self._result(t))

    def repeat(self, t: T, shape: Sequence[int]) -> T:
        """``Tensor.repeat``: a new tensor; ``RepeatBackward0`` keeps only sizes."""
        return self.new(shape, t.grad, self._result(t))

    def elementwise_like(self, t: T, grad: bool, other: T | None = None) -> T:
        """A pointwise result laid out as its input (TensorIterator keeps a permuted input's dimension order):
        ``q + q_bias`` on DeBERTa's permuted view stays [B, L, A, D] in memory, so a later reshape copies.
        ``other``: the operation's other operand, whose dtype promotes the result's under autocast."""
        out = self.new(t.shape, grad, self._result(t) if other is None else self._result(t, other))
        return T(out.shape, dense_strides_like(t), out.storage, out.grad, out.itemsize)

    # -- operations for megatron-bert, xlm-roberta-xl, xmod, rembert, roformer, esm, nomic_bert

    def index_rows(self, t: T, mask: T, rows: int) -> T:
        """``t[mask]`` with a bool mask over dimension 0 (``index.Tensor``): a new tensor of the ``rows`` chosen.

        derivatives.yaml: ``self: index_backward(grad.new_zeros(self.sizes()), indices, grad)``: the
        backward needs the indices (the mask itself) and only the input's sizes, so the mask is kept
        when ``t`` needs a gradient.
        """
        if t.grad:
            self.save(mask)
        return self.new((rows, *t.shape[1:]), t.grad, t.itemsize)

    def index_put(self, dest: T, mask: T, values: T) -> T:
        """``dest[mask] = values`` in place (``index_put_``): ``dest`` now needs a gradient if ``values`` does.

        derivatives.yaml: ``self: grad.index_put(indices, zeros_like(values), accumulate)``,
        ``values: grad.index(indices)``: both need the indices (the mask), kept when either needs a gradient.
        """
        grad = (dest.grad or values.grad) and self.grad_mode
        if grad:
            self.save(mask)
        return T(dest.shape, dest.strides, dest.storage, grad, dest.itemsize)

    def rotary(self, t: T, cos: T, sin: T, promote: bool = False) -> T:
        """Rotary positions applied as ``t * cos + rotate_half(t) * sin`` (RoFormer, ESM, NomicBERT).

        ``rotate_half`` (a negation, slices, ``stack`` or ``cat``) keeps nothing; each ``mul`` keeps the other
        factor for the gradient of the one that needs it (derivatives.yaml ``mul.Tensor``: ``self:
        mul_tensor_backward(grad, other, ...)``), so when ``t`` needs a gradient the backward keeps ``cos``
        and ``sin`` (tables that need none), not ``t``. The sum is a new contiguous tensor.
        """
        if t.grad:
            self.save(cos)
            self.save(sin)
        if promote and self.lower is not None:  # Llama's apply_rotary_pos_emb, not cast back: bf16 × fp32 cos is fp32
            return self.new(t.shape, t.grad, max(t.itemsize, cos.itemsize))
        return self.new(t.shape, t.grad, t.itemsize)

    def scale_by(self, t: T, factor: T, itemsize: int | None = None) -> T:
        """``t * factor`` or ``t / factor`` where ``factor`` needs no gradient (ESM's token-dropout rescaling).

        derivatives.yaml ``mul.Tensor``/``div.Tensor``: the gradient of ``t`` needs ``factor``
        (kept when ``t`` needs a gradient); ``t`` itself is needed only for ``factor``'s.
        """
        if t.grad:
            self.save(factor)
        return self.new(t.shape, t.grad, t.itemsize if itemsize is None else itemsize)

    def masked_fill(self, t: T, mask: T) -> T:
        """``t.masked_fill(mask, value)``: derivatives.yaml ``self: grad.masked_fill(mask, 0)`` keeps the mask."""
        if t.grad:
            self.save(mask)
        return self.new(t.shape, t.grad, t.itemsize)

    def masked_fill_(self, t: T, mask: T) -> T:
        """``t.masked_fill_(mask, value)`` in place (XLM's scores): no new storage; the backward keeps the mask."""
        if t.grad and self.grad_mode:
            self.save(mask)
        return T(t.shape, t.strides, t.storage, t.grad and self.grad_mode, t.itemsize)

    def scale_(self, t: T, factor: T) -> T:
        """``t *= factor`` in place, ``factor`` needing no gradient (XLM's padding mask): the backward keeps it."""
        if t.grad and self.grad_mode:
            self.save(factor)
        return T(t.shape, t.strides, t.storage, t.grad and self.grad_mode, t.itemsize)

    def cast(self, t: T, itemsize: int) -> T:
        """``t.to(dtype)`` to another width (``scores.float()``, ``.type_as``): a new tensor, nothing kept."""
        return self.new(t.shape, t.grad, itemsize)

    def divided(self, t: T) -> T:
        """``t / number``: a new tensor laid out as ``t`` (a transposed view's strides kept), nothing kept."""
        made = self.new(t.shape, t.grad, t.itemsize)
        return T(t.shape, t.strides, made.storage, made.grad, t.itemsize)

    def gelu_erf(self, t: T) -> T:
        """ESM's ``gelu``, written out in Python: ``x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))``.

        ``erf`` keeps its input (``x / sqrt(2)``: derivatives.yaml ``erf: 2.0 / sqrt(M_PI) *
        exp(-(self.pow(2))) * grad``), the last product both its factors (``x * 0.5`` and ``1 + erf``):
        three new tensors of the input's shape, not the input itself.
        """
        size = self._result(t)
        if not t.grad:
            return self.new(t.shape, False, size)
        self.save(self.new(t.shape, True, size))  # x * 0.5
        self.save(self.new(t.shape, True, size))  # x / sqrt(2)
        self.save(self.new(t.shape, True, size))  # 1 + erf(...)
        return self.new(t.shape, True, size)

    def sdpa(self, q: T, k: T, v: T, mask: T | None = None) -> T:
        """``scaled_dot_product_attention`` as CPU runs it with attention dropout 0: the flash kernel
        ``_scaled_dot_product_flash_attention_for_cpu`` (PEAK.md section 4). FLOPs are
        ``torch.utils.flop_counter``'s sdpa rules: forward the two products ``QKᵀ`` and ``PV``; backward five
        (the scores recomputed, then the gradients of the scores, of V, of Q and of K). FlopCounterMode itself
        registers those rules for CUDA's kernels only and counts 0 for the CPU kernel (measured,
        tests/crosscheck/test_costs_sdpa_op.py). Its backward keeps q, k, v (their storages, views
        included), the output [B, A, L, d] and a float32 logsumexp [B, A, L], plus a float mask if one is
        passed (ModernBERT's local layers). The kernel allocates its output as [B, L, A, d] and returns it
        transposed to [B, A, L, d] (measured: strides (L·A·d, d, A·d, 1)), so transformers'
        ``attn_output.transpose(1, 2).contiguous()`` copies nothing and the output projection keeps this very
        storage. Called by the families whose :attr:`CostModel.sdpa` is True when ``sim.attention`` is "sdpa".

        Under autocast CPU lists ``scaled_dot_product_attention`` as a lower-precision operation: a float32 q, k, v
        or float mask is cast to bf16 first (a copy, :meth:`lowered`), the kernel runs in bf16 and returns a bf16
        output and a float32 logsumexp (measured, tests/crosscheck/test_costs_sdpa_reference.py)."""
        if not q.shape[-1] == k.shape[-1] == v.shape[-1]:
            # check_head_dim_size_cpp: the flash kernel needs one head size; PyTorch runs its math path instead.
            return self.sdpa_math(q, k, v, mask)
        q, k, v = self.lowered(q), self.lowered(k), self.lowered(v)
        if mask is not None:
            mask = self.lowered(mask)
        b, h, s_q, d_q = q.shape
        s_k, d_v = k.shape[-2], v.shape[-1]
        forward = 2 * b * h * s_q * d_q * s_k + 2 * b * h * s_q * s_k * d_v
        grad = (q.grad or k.grad or v.grad) and self.grad_mode
        row = self.record("_scaled_dot_product_flash_attention_for_cpu", forward)
        # One tensor, laid out [B, L, A, d] and returned as [B, A, L, d] (no TransposeBackward0 of its own).
        raw = self.new((b, s_q, h, d_v), grad, q.itemsize)
        out = T((b, h, s_q, d_v), (raw.strides[0], raw.strides[2], raw.strides[1], raw.strides[3]), raw.storage,
                raw.grad, raw.itemsize)
        if grad and self.grad_mode:
            row.backward += 2 * b * h * s_q * s_k * (3 * d_q + 2 * d_v)
            lse = self.new((b, h, s_q), False, 4)
            for t in (q, k, v, out, lse):
                self.save(t)
            if mask is not None:
                self.save(mask)
        return out

    def sdpa_math(self, q: T, k: T, v: T, mask: T | None = None) -> T:
        """``scaled_dot_product_attention`` where CPU leaves the flash kernel for ``_scaled_dot_product_attention_math``
        (attention dropout 0): heads of different sizes (``check_head_dim_size_cpp``: ModernBERT's and Nomic BERT's
        one-wide heads, whose rotary gives Q and K two columns), or a mask that needs a gradient (T5's trained
        position bias). Measured on PyTorch 2.13 (tests/crosscheck/test_costs_sdpa_reference.py):

        autocast casts q, k, v (and a float mask) to bf16 first, as for the kernel; the math path then computes in
        float32 (a bf16 q, k, v is copied to float32, each copy keeping its input's order of strides); ``q * √scale``
        and ``kᵀ * √scale`` (``mul.Scalar``, keeping nothing, their outputs laid out as their inputs); ``matmul``
        (``bmm``, each operand reshaped to 3-D, a copy where strides demand, kept for the other's gradient); the
        mask added (keeps nothing); ``_safe_softmax`` (keeps its float32 output); ``matmul`` by V; the output cast
        back to the inputs' dtype (a copy). Autocast is off inside the operation: the products stay float32."""
        self.sdpa_math_ran = True
        q, k, v = self.lowered(q), self.lowered(k), self.lowered(v)
        if mask is not None:
            mask = self.lowered(mask)
        origin = q.itemsize
        if origin != 4:
            q, k, v = self._copy_like(q, 4), self._copy_like(k, 4), self._copy_like(v, 4)
        scaled_q = self._copy_like(q, 4)
        scaled_k = self._copy_like(self.transpose(k, -2 + len(k.shape), -1 + len(k.shape)), 4)
        scores = self._math_bmm(scaled_q, scaled_k)
        if mask is not None:
            grad = (scores.grad or mask.grad) and self.grad_mode
            scores = self.new(scores.shape, grad, 4) if mask.grad else T(
                scores.shape, scores.strides, scores.storage, grad, 4)  # add (a mask needing a gradient) or add_
        probs = self.new(scores.shape, scores.grad, 4)  # _safe_softmax: its backward needs its output
        if probs.grad:
            self.save(probs)
        out = self._math_bmm(probs, v)
        return out if origin == 4 else self.new(out.shape, out.grad, origin)

    def sdpa_math_replayed(self, q: T, k: T, v: T, mask: T | None = None) -> T:
        """:meth:`sdpa_math` where the lifetime simulator replays it op by op (T5's trained position bias in
        float32); the same operations here."""
        return self.sdpa_math(q, k, v, mask)

    def _copy_like(self, t: T, itemsize: int) -> T:
        """A pointwise result or ``_to_copy`` of ``t``: a new storage laid out in ``t``'s order of strides (dense:
        its very strides; PyTorch's ``empty_like`` with ``preserve_format``), which keeps nothing."""
        out = self.new(t.shape, t.grad, itemsize)
        order = sorted(range(len(t.shape)), key=lambda d: (t.strides[d], -d))
        strides = [0] * len(t.shape)
        step = 1
        for d in order:
            strides[d] = step
            step *= t.shape[d]
        return T(t.shape, tuple(strides), out.storage, out.grad, itemsize)

    def _math_bmm(self, a: T, b: T) -> T:
        """The math path's ``matmul`` of two 4-D float32 tensors, autocast off: :meth:`bmm` without the casts."""
        batch = a.shape[:-2]
        nb = 1
        for d in batch:
            nb *= d
        n, k, m = a.shape[-2], a.shape[-1], b.shape[-1]
        a3, b3 = self.reshape(a, (nb, n, k)), self.reshape(b, (nb, k, m))
        flops = 2 * nb * n * k * m
        self.contract("bmm", flops, ((a3.grad, flops, b3), (b3.grad, flops, a3)))
        return self.view(self.new((nb, n, m), a3.grad or b3.grad, 4), (*batch, n, m))

    # -- op-by-op lifetimes (issue 32): no-ops here, recorded by :class:`calculator.costs.lifetime.LiveSim`

    def exact_lifetimes(self) -> None:
        """Called by a family's program whose every operation the lifetime simulator models (BERT's classes):
        the peak is then worked out op by op (:mod:`.lifetime`). Nothing to do on the plain tape."""

    def transients(self, sizes: Sequence[int], deaths: Sequence[int] | None = None, ops: Sequence[str] = ()) -> None:
        """Storages of these sizes (bytes) made one after another and dropped inside the current scope, which no
        figure of the tape counts (RoBERTa's position ids computed from ``input_ids``): only the lifetime
        simulator sees them. ``deaths[i]``: the index in ``sizes`` after whose allocation storage i is dropped
        (``len(sizes)``: after the program's next storage); None: each lives until the scope's end. ``ops``: the
        aten operation that makes each (what the peak names when it lies there)."""

    def held_by_outputs(self, *ts: T, returned: bool = True) -> None:
        """The model's outputs hold ``ts`` whatever Python names inside the forward (BigBird's decoder writes each
        layer's keys and values into the ``DynamicCache`` its model's output holds): ``returned``, the class returns
        it too (``BigBirdModel``, the causal LM), so they live until the step drops the outputs (after the loss in
        training); else until the class's forward returns. Only the lifetime simulator uses it."""

    def no_peak(self) -> None:
        """Called by a family's program on a path whose storages it does not list completely (BigBird as a decoder,
        or question answering, whose inputs are made from the ids): the step then claims no peak and no bound
        (``peak_not_modelled``, reason ``config``), rather than a bound the path was never proven under."""
        self.peak_unchecked = True

    def exact_forward(self) -> None:
        """Called by a family's program that declares every point where the model's Python drops a name
        (:meth:`release`, :meth:`end_scope`): the lifetime simulator then replays the forward exactly instead of
        bounding it. Nothing to do on the plain tape."""

    def exact_autocast(self) -> None:
        """Called by a family's program (with :meth:`exact_forward`) whose every operation the lifetime simulator
        also models under autocast (each Linear's bf16 copies, the promoting residual adds): only then is the peak
        under mixed precision worked out op by op. Nothing to do on the plain tape."""

    def release(self, *ts: T) -> None:
        """The model's Python drops its last name of each of ``ts`` here (a name rebound, a temporary of an
        expression consumed): its storage is gone after the last allocation, unless autograd saved it or the
        forward returns it. Only the lifetime simulator uses it."""

    def rebind(self, old: T, new: T) -> T:
        """``x = f(x)``: the name moves from ``old`` to ``new`` (``old`` released unless ``f`` returned it, as an
        inactive dropout does). Returns ``new``."""
        if old.storage != new.storage:
            self.release(old)
        return new

    def scope(self) -> int:
        """Where a Python function of the model begins (a mark for :meth:`end_scope`)."""
        return self._next

    def end_scope(self, mark: int, out: T, *also: T) -> T:
        """That function returns ``out`` (and ``also``, a tuple's other members): a storage it made that nothing
        saved and it does not return is gone (its names die with the frame). Only the lifetime simulator uses it."""
        return out

    def named_transient(self, nbytes: int, op: str) -> int:
        """A storage of ``nbytes`` no figure of the tape counts (as :meth:`transients`), named by the model's Python
        until :meth:`drop_transient` (Megatron-BERT's ``attention_mask = torch.ones(...)``, dropped once the mask
        function has read it); a handle for that call. Only the lifetime simulator sees it."""
        return 0

    def drop_transient(self, handle: int) -> None:
        """The model's Python drops its name of the :meth:`named_transient` ``handle`` here."""

    def buffer_transient(self, handle: int) -> int:
        """The :meth:`named_transient` ``handle`` is a buffer's new storage that replaces the old one (I-BERT's
        ``QuantAct`` assigning ``self.x_min = ...``): counted as a buffer, not an activation, while both are live.
        Returns the handle. Only the lifetime simulator sees it."""
        return handle

    def made_by(self, t: T, aten: str) -> T:
        """``t`` was made by the aten operation ``aten`` (what ``LiveBytes`` names the peak by) rather than the one
        the simulator's own operation names (Megatron-BERT's and MPNet's ``scores / sqrt(d)``: ``aten.div``).
        Only the lifetime simulator uses it."""
        return t

    def split_columns(self, t: T) -> list[T]:
        """``t.split(1, dim=-1)``, each part ``squeeze(-1).contiguous()`` (the QA heads' start and end logits): a
        copy per column (``split`` and ``squeeze`` are views; the copy keeps nothing)."""
        return [self.pointwise(self.select(t, len(t.shape) - 1)) for _ in range(t.shape[-1])]

    # -- operations for roc_bert (issue 32: its embeddings replayed op by op)

    def clone(self, t: T) -> T:
        """``torch.clone(t)``: a copy that keeps nothing (its backward passes the gradient on)."""
        return self.pointwise(t)

    def add_to_view(self, a: T, b: T) -> T:
        """``a += b`` in place where ``a`` is a view (a Linear's 3-D output, a view of ``addmm``'s 2-D one) and
        ``b`` may broadcast: no new storage, nothing kept; autograd rebases the view's base (``CopySlices``,
        :meth:`calculator.costs.lifetime.LiveSim.add_to_view`)."""
        return Ops.add_(self, a, b)

    def scale_in_place(self, t: T) -> T:
        """``t /= number`` in place (RoCBert's ``embedding_in /= denominator``): no new storage, nothing kept."""
        return T(t.shape, t.strides, t.storage, t.grad and self.grad_mode, t.itemsize)

    # -- operations for layoutlm (issue 32: ALIGN's attention replayed op by op)

    def checkpoint_argument(self, t: T) -> None:
        """``t`` is passed to every checkpointed block after this point besides its hidden states (LayoutLM's
        additive mask): checkpointing of either kind keeps it (a ``save`` here, once)."""
        self.save(t)

    # -- operations for xmod (issue 32: its language adapters replayed op by op)

    def zeros_like(self, t: T) -> T:
        """``torch.zeros_like(t)``: a new tensor needing no gradient."""
        return self.new(t.shape, False, t.itemsize)

    # -- operations for modernbert (issue 32: each one's autograd node in :class:`~.lifetime.LiveSim`)

    def constant_by(self, aten: str, shape: Sequence[int], itemsize: int) -> T:
        """:meth:`constant` made by the aten operation ``aten`` (what the peak names when it lies there: ModernBERT's
        rotary tables, its window mask)."""
        return self.constant(shape, itemsize)

    def rotary_float(self, q: T, k: T, cos: T, sin: T) -> tuple[T, T]:
        """ModernBERT's ``apply_rotary_pos_emb``: ``q.float() * cos + rotate_half(q.float()) * sin`` and the same for
        ``k``, each cast back to its dtype. Each ``mul`` by a table keeps the table (it needs no gradient), nothing
        else is kept; the results keep the layout of q and k (a transposed [B, L, A, D] view of the fused
        projection: TensorIterator follows the first input), so ``matmul`` copies them."""
        if q.grad or k.grad:
            self.save(cos)
            self.save(sin)
        if cos.shape[-1] != q.shape[-1]:  # one-wide heads broadcast against the two-wide tables: two columns
            return (self.new(q.shape[:-1] + (cos.shape[-1],), q.grad, q.itemsize),
                    self.new(k.shape[:-1] + (cos.shape[-1],), k.grad, k.itemsize))
        return self.elementwise_like(q, q.grad), self.elementwise_like(k, k.grad)

    def unbind_heads(self, t: T, dim: int) -> list[T]:
        """``t.unbind(dim)``: a view per index (``UnbindBackward0`` stacks their gradients)."""
        return [self.select(t, dim, i) for i in range(t.shape[dim])]

    def chunk_halves(self, t: T) -> list[T]:
        """``t.chunk(2, dim=-1)``: two views of half the last dimension (``SplitBackward0`` concatenates their
        gradients)."""
        half = t.shape[-1] // 2
        return [T(t.shape[:-1] + (half,), t.strides, t.storage, t.grad, t.itemsize) for _ in range(2)]

    def glu_product(self, a: T, b: T) -> T:
        """``act(input) * gate`` of two activations (``mul.Tensor``: each factor kept for the other's gradient), a
        new contiguous tensor."""
        if self.grad_mode:
            if b.grad:
                self.save(a)
            if a.grad:
                self.save(b)
        return self.new(a.shape, a.grad or b.grad, self._result(a, b))

    def to_dtype(self, t: T, itemsize: int) -> T:
        """``t.to(dtype)``: a copy in ``itemsize`` bytes a number that keeps nothing."""
        return self.new(t.shape, t.grad, itemsize)

    def softmax_to_float(self, t: T) -> T:
        """``softmax(t, dim=-1, dtype=torch.float32)`` (ModernBERT's eager attention): :meth:`softmax_float32`."""
        return self.softmax_float32(t)

    def masked_mean(self, t: T) -> T:
        """ModernBERT's mean pooling without a mask given: ``(t * mask.unsqueeze(-1)).sum(1) / mask.sum(1,
        keepdim=True)`` with ``mask`` a bool [B, L] of ones; the product keeps the mask, the division the int64
        [B, 1] count."""
        b, n, h = t.shape
        product = self.op_with_constant(t, self.constant((b, n), 1))
        summed = self.new((b, h), product.grad, product.itemsize)
        return self.op_with_constant(summed, self.constant((b, 1), INDEX_BYTES))

    # -- operations for eurobert (issue 32: each one's autograd node in :class:`~.lifetime.LiveSim`)

    def rotary_plain(self, q: T, k: T, cos: T, sin: T) -> tuple[T, T]:
        """Llama's ``apply_rotary_pos_emb`` in the model's dtype (EuroBERT): ``q * cos + rotate_half(q) * sin``, the
        same for ``k``; each ``mul`` by a table keeps the table; the results keep the layout of q and k. Under
        autocast the bf16 projections times the float32 tables (the model's dtype) promote: the rotated Q and K are
        float32, and so are the probabilities and the attention dropout's noise after them (measured with
        saved_tensors_hooks: EuroBERT's eager dropout saves a float32 [B, A, L, L] noise, the 768 bytes
        tests/crosscheck/test_costs_autocast.py's eurobert-6 missed)."""
        if q.grad or k.grad:
            self.save(cos)
            self.save(sin)
        return self.elementwise_like(q, q.grad, cos), self.elementwise_like(k, k.grad, cos)

    def mean_tokens(self, t: T) -> T:
        """``t.mean(dim=1)``: a new tensor without the token dimension; ``MeanBackward1`` keeps nothing."""
        return self.pointwise(self.select(t, 1))

    def expand_summed(self, t: T, shape: Sequence[int]) -> T:
        """``expand`` over a broadcast dimension (``repeat_kv``): a view; its backward sums the gradient back."""
        return self.expand(t, shape)

    # -- rotary position embeddings op by op (issue 32: roformer, esm, nomic_bert, gte)

    def rotate(self, t: T, cos: T, sin: T, interleaved: bool, upcast: bool = False) -> T:
        """``t * cos + rotate_half(t) * sin`` (``interleaved``: RoFormer's ``stack([-t[..., 1::2], t[..., ::2]], -1)``;
        else ``cat((-x2, x1), -1)`` of the two halves; ``upcast``: computed on ``t.float()``). On the plain tape it is :meth:`rotary` (what autograd keeps:
        ``cos`` and ``sin``); :class:`~.lifetime.LiveSim` records it op by op (every temporary, every node)."""
        return self.rotary(t, cos, sin)

    def rotate_one_wide(self, q: T, k: T, cos: T, sin: T) -> tuple[T, T]:
        """Llama's ``apply_rotary_pos_emb`` on one-wide heads (d = 1): cos and sin are two wide, so ``q * cos`` and
        ``rotate_half(q) * sin`` broadcast Q and K to two columns (V stays one wide). On the plain tape: :meth:`rotary`
        (what autograd keeps) and a two-wide result for each; :class:`~.lifetime.LiveSim` replays it op by op,
        forward and backward (GTE, jina-v3, Nomic BERT, ESM C)."""
        q, k = self.rotary(q, cos, sin), self.rotary(k, cos, sin)
        return self.new((*q.shape[:-1], 2), q.grad), self.new((*k.shape[:-1], 2), k.grad)

    def fresh(self, shape: Sequence[int], aten: str, itemsize: int | None = None) -> T:
        """A tensor an operation makes that needs no gradient (a rotary table's ``stack``, ``ones``): ``aten`` names
        the operation for the lifetime simulator (what the peak names when it lies there)."""
        return self.new(shape, False, itemsize)

    def divide(self, t: T) -> T:
        """``t / number`` (RoFormer's ``attention_scores / math.sqrt(d)``): keeps nothing, as :meth:`pointwise`."""
        return self.pointwise(t)

    def layer_argument(self, t: T, counted: bool = True, keyword: bool = True) -> None:
        """A tensor every checkpointed layer takes besides its hidden states (RoFormer's rotary table, ESM's cos and
        sin): the checkpoint keeps it; ``counted``: the tape counts it as saved (RoFormer's); ``keyword``: passed by
        keyword (ESM's), not positionally (RoFormer's): only the lifetime simulator's reentrant checkpointing tells
        them apart."""
        if counted:
            self.save(t)

    def positional_arguments(self, *ts: T, counted: bool = True) -> None:
        """The next checkpointed layer's positional tensor arguments besides its hidden states (NeoMME's
        ``initial_hidden_states`` and ``value_embeds``, T5's ``position_bias``): the checkpoint keeps each, as
        :meth:`layer_argument` counts it (``counted``). The lifetime simulator's reentrant checkpointing saves them
        with the layer's node and makes each one needing a gradient a leaf of the recomputation
        (:meth:`.lifetime.LiveSim.reentrant_layer`)."""
        for t in ts if counted else ():
            self.layer_argument(t)

    def checkpoint_output(self, t: T, grad: bool) -> T:
        """Another output of the reentrant checkpointed layer just run (T5's ``position_bias``, block 0's or the
        input a later block returns), as ``CheckpointFunction`` returns it: the same storage, needing a gradient when
        the layer's input does (``grad``); the tape counts it as saved, a later layer's argument."""
        out = T(t.shape, t.strides, t.storage, grad, t.itemsize)
        self.save(out)
        return out

    def split_views(self, t: T) -> list[T]:
        """``t.split(1, dim=-1)``, each part ``squeeze(-1)`` (RoFormer's QA head, no ``.contiguous()``): views of
        ``t``, nothing copied or kept."""
        return [self.select(t, len(t.shape) - 1) for _ in range(t.shape[-1])]

    def scalar(self, t: T, aten: str = "aten.mul") -> T:
        """``t * number`` or ``t / number`` (``aten`` names which): keeps nothing, as :meth:`pointwise`."""
        return self.pointwise(t)

    def cast_like(self, t: T, itemsize: int) -> T:
        """``t.to(dtype)``: a new tensor that keeps nothing (its layout is the lifetime simulator's business)."""
        return self.new(t.shape, t.grad, itemsize)

    def add_param(self, t: T, name: str) -> T:
        """``t + parameter`` out of place (ESM's ``decoder(x) + self.bias``): a new tensor, nothing kept; it needs a
        gradient when ``t`` does or the parameter trains."""
        trains = self.param_trains(name)  # type: ignore[attr-defined]
        return self.new(t.shape, t.grad or trains)

    def silu(self, t: T) -> T:
        """``silu`` (Nomic BERT's SwiGLU): the backward needs the input, as :meth:`keep_input`."""
        return self.keep_input(t)

    def fft_real(self, t: T) -> T:
        """``torch.fft.fftn(t, dim=(1, 2)).real`` (FNet's token mixing): ``_to_copy`` to complex (a temporary of
        twice ``t``'s bytes), ``_fft_c2c`` (complex too), and ``.real``, a strided view that keeps the whole complex
        storage alive. Nothing is kept for the backward and no FLOPs are counted (FlopCounterMode has no FFT rule).
        Under autocast ``fft_fftn`` is on CPU's float32 list: a bf16 input is first cast to float32 (a copy)."""
        if self.lower is not None and t.itemsize < 4:
            t = self.new(t.shape, t.grad, 4)
        size = 2 * t.itemsize
        self.new(t.shape, t.grad, size)
        out = self.new(t.shape, t.grad, size)
        return T(t.shape, tuple(2 * s for s in out.strides), out.storage, out.grad, t.itemsize)

    # -- Nyströmformer's landmarks and pseudo-inverse (their lifetimes: LiveSim's methods of the same names)

    def sum_dim(self, t: T, dim: int) -> T:
        """``torch.sum(t, dim=dim)``: a new tensor without ``dim``; ``SumBackward1`` keeps only sizes."""
        d = dim % len(t.shape)
        return self.new(t.shape[:d] + t.shape[d + 1:], t.grad, t.itemsize)

    def mean_dim(self, t: T, dim: int) -> T:
        """``t.mean(dim=dim)``: a new tensor without ``dim``; ``MeanBackward1`` keeps only sizes."""
        return self.sum_dim(t, dim)

    def max_all(self, t: T) -> T:
        """``torch.max(t)``: a 0-dim tensor; ``MaxBackward1`` keeps the input and the result."""
        out = self.new((), t.grad, t.itemsize)
        if t.grad and self.grad_mode:
            self.save(t)
            self.save(out)
        return out

    def reciprocal(self, t: T) -> T:
        """``1 / t``'s ``reciprocal``: ``ReciprocalBackward0`` keeps the result."""
        return self.keep_output(t)

    def scalar_times(self, s: T, t: T) -> T:
        """``s * t`` with a 0-dim ``s`` (the pseudo-inverse's ``1 / max(...) * key.transpose(-1, -2)``): each factor
        kept for the other's gradient."""
        return self.mul(s, t, t.shape)

    def sub_from(self, c: T, t: T) -> T:
        """``c - t`` with a constant ``c`` broadcast (``7 * identity - key_value``): nothing kept."""
        return self.add(c, t)
    def trigram_pad(self, t: T) -> T:
        """MobileBERT's ``pad(t[:, 1:], ...)`` / ``pad(t[:, :-1], ...)``: a slice along the tokens padded back to
        ``t``'s shape with zeros, a new tensor; nothing kept (``constant_pad_nd`` and ``slice`` keep sizes only)."""
        return self.pad(t, t.shape)

    def softmax(self, t: T) -> T:
        """``torch.softmax`` of any rank in the input's dtype (ConvBERT's [N, k, 1] kernels): keeps its output."""
        return self.keep_output(t)

    def unfold_windows(self, t: T, kernel: int) -> T:
        """``nn.functional.unfold`` of [B, C, L, 1] with a [k, 1] kernel padded to keep L (ConvBERT's ``im2col``):
        a new [B, C·k, L] tensor; ``im2col``'s backward keeps sizes only."""
        b, c, n = t.shape[0], t.shape[1], t.shape[2]
        return self.new((b, c * kernel, n), t.grad, t.itemsize)

    def linear_strided(self, module: str, x: T) -> T:
        """``nn.Linear`` on a 3-D input that may not be contiguous (ConvBERT's ``conv_kernel_layer``): the costs are
        :meth:`~.modules.Sim.linear`'s; :class:`~.lifetime.LiveSim` records ``at::linear``'s matmul path."""
        return self.linear(module, x)  # type: ignore[attr-defined]

    def refuse_peak(self, why: str) -> None:
        """The training step runs an operation whose storages the peak's bounds do not count (MobileBERT's MLM
        head keeps a gradient storage larger than its parameter): only the op-by-op replay (:mod:`.lifetime`), which
        counts them, gives a figure; where it does not, the step gives no peak and no bounds."""
        self.peak_refused = why

    def input_padded(self) -> None:
        """The forward pads ``input_ids`` before reading them (BigBird's block-sparse attention): the lookups read
        ``nn.functional.pad``'s copy, a storage of the forward's own. The tape lists it as any storage; the
        op-by-op replay (:meth:`.lifetime.LiveSim.input_padded`) must not take it for the input live from the start."""

    def bounded_under_autocast(self) -> None:
        """The program lists autocast's storages where the peak's bounds count them (Reformer: the weights' cached
        bf16 copies outside its layers' blocks, the backward's rerun in float32), so under mixed precision the step
        gives those bounds; without this only the op-by-op replay gives a peak under autocast."""
        self.autocast_bounded = self.lower is not None

    # -- DeBERTa (v1)'s operations (issue 32): the tape's costs; :class:`~.lifetime.LiveSim` records their nodes

    def deberta_layer_norm(self, module: str, x: T) -> T:
        """``DebertaLayerNorm``, written out in Python (epsilon inside the root), in float32 whatever the dtype.

        ``(x - mean).pow(2)`` keeps its base, ``sqrt`` its result, the division ``(x - mean) / std`` its numerator
        (a second ``x - mean``) and the root: all float32. ``weight * normalized`` keeps the normalized tensor (back
        in the model's dtype) when the weight trains.
        """
        w = self.param_trains(module + ".weight")  # type: ignore[attr-defined]
        b = self.param_trains(module + ".bias")  # type: ignore[attr-defined]
        rows = x.shape[:-1] + (1,)
        if x.grad:
            self.save(self.new(x.shape, True, 4))  # x - mean, for pow
            self.save(self.new(rows, True, 4))  # sqrt(variance + eps)
            self.save(self.new(x.shape, True, 4))  # x - mean, for the division
        # ``.to(input_type)``: the model's dtype, or under autocast the input's (bf16 after a projection); the product
        # with the float32 weight is float32 then (promoted)
        normalized = self.new(x.shape, x.grad, x.itemsize if self.lower is not None else None)
        if w:
            self.save(normalized)
        return self.new(x.shape, x.grad or w or b)

    def int_layer_norm(self, module: str, x: T) -> T:
        """I-BERT's ``IntLayerNorm`` with quant_mode false, written out in Python in x's dtype: ``mean``,
        ``y = x - mean``, ``var = mean(y ** 2)``, ``x = y / sqrt(eps + var)``, ``x * weight + bias``.

        What autograd keeps (derivatives.yaml): ``pow`` its input ``y``; ``sqrt`` its result [B, L, 1]; ``div``
        both ``y`` and the root; ``mul`` by the weight the quotient when the weight trains (the weight itself is a
        parameter). The means, the subtraction and the two additions keep nothing. No matrix product: no FLOPs.
        """
        with self._in(module):
            w_trains = self.param_trains(module + ".weight")  # type: ignore[attr-defined]
            b_trains = self.param_trains(module + ".bias")  # type: ignore[attr-defined]
            rows = x.shape[:-1] + (1,)
            mean = self.new(rows, x.grad)
            y = self.add(x, mean)  # x - mean
            squared = self.keep_input(y)  # y ** 2: pow keeps y
            var = self.new(rows, squared.grad)  # mean(..., keepdim=True)
            self.keep_output(self.new(rows, var.grad))  # sqrt(eps + var): its result
            if y.grad:
                self.save(y)
            quotient = self.new(x.shape, y.grad)  # y / root
            if w_trains and self.grad_mode:
                self.save(quotient)
            scaled = self.new(x.shape, quotient.grad or w_trains)
            return self.new(x.shape, scaled.grad or b_trains)

    def add_head_bias(self, t: T, name: str) -> T:
        """``layer + transpose_for_scores(bias[None, None, :])`` on DeBERTa's permuted Q or V: laid out as ``t``;
        nothing kept."""
        trains = self.param_trains(name)  # type: ignore[attr-defined]  # read either way: noted as used
        return self.elementwise_like(t, t.grad or trains)

    def divide_laid_out(self, t: T, scale: T) -> T:
        """``t / scale.to(t.dtype)`` (a 0-dim tensor) laid out as ``t``: ``DivBackward0`` keeps the scalar."""
        if t.grad:
            self.save(scale)
        return self.elementwise_like(t, t.grad)

    def divide_view_(self, t: T, scale: T) -> T:
        """``t /= scale`` in place on a view (DeBERTa's ``pos_query_layer``): no new storage; keeps the scalar."""
        if t.grad:
            self.save(scale)
        return t

    def slice_rows(self, t: T, start: int, rows: int) -> T:
        """``t[start:start + rows, :].unsqueeze(0)`` of a 2-D table: a view [1, rows, H]."""
        shape = (1, rows, t.shape[1])
        return T(shape, contiguous_strides(shape), t.storage, t.grad, t.itemsize)

    def chunk_thirds(self, t: T) -> list[T]:
        """``t.chunk(3, dim=-1)`` (DeBERTa's fused Q, K, V): three views of a third of the last dimension."""
        third = t.shape[-1] // 3
        return [T(t.shape[:-1] + (third,), t.strides, t.storage, t.grad, t.itemsize) for _ in range(3)]

    # -- operations for funnel (issue 32: its forward replayed op by op)

    def minus_mask(self, t: T, mask: T, promoted: bool = False) -> T:
        """``t - mask`` with a broadcast [B, 1, 1, L] ``mask`` needing no gradient (Funnel's ``attn_score - INF * (1 -
        mask)``): a new tensor of ``t``'s shape in the wider dtype; nothing kept. ``promoted``: the lifetime
        simulator models a wider result (BigBird's bf16 QA logits minus a float32 mask), which it refuses otherwise."""
        return self.new(t.shape, t.grad, max(t.itemsize, mask.itemsize))

    def repeat_rows(self, t: T, times: int) -> T:
        """``torch.repeat_interleave(t, repeats=times, dim=1)`` of a [B, m, D] tensor: a new [B, m·times, D] tensor;
        nothing kept."""
        b, m, d = t.shape
        return self.new((b, m * times, d), t.grad, t.itemsize)

    def times_table(self, t: T, table: T) -> T:
        """``t * table`` with a broadcast table needing no gradient (Funnel's ``q_r_attention * phi[:, None]``): a new
        tensor laid out as ``t`` (TensorIterator follows its first input); ``mul`` keeps the table for ``t``'s
        gradient."""
        if t.grad:
            self.save(table)
        return self.elementwise_like(t, t.grad)
    # -- operations for neomme (issue 32: each one's autograd node in :class:`~.lifetime.LiveSim`)

    def rms_norm_pow(self, x: T) -> T:
        """``NeoMMERMSNorm`` without a scale: ``x.float()``; ``pow(2)`` keeps it; ``mean``, ``+ eps`` keep nothing;
        ``torch.pow(·, -0.5)`` keeps its input [.., 1]; ``x · that`` keeps both factors (the power's output a second
        [.., 1] float32 tensor, unlike Llama's ``rsqrt``, which keeps one); ``.type_as(x)``. No FLOPs counted."""
        x32 = x if x.itemsize == 4 else self.new(x.shape, x.grad, 4)  # bf16: the model's, or autocast's
        rows = x.shape[:-1] + (1,)
        mean = self.new(rows, x32.grad, 4)
        power = self.new(rows, x32.grad, 4)
        if x32.grad:
            self.save(x32)  # pow(2)
            self.save(mean)  # pow(mean + eps, -0.5)
            self.save(power)  # the product: both factors
        out = self.new(x.shape, x32.grad, 4)
        return out if x.itemsize == 4 else self.new(x.shape, out.grad, x.itemsize)  # .type_as(x)

    def normalize_last(self, x: T) -> T:
        """``F.normalize(x, dim=-1)``: ``x / x.norm(dim=-1, keepdim=True).clamp_min(eps).expand_as(x)``. The norm
        keeps its input and output, ``clamp_min`` its input (the norm), the division both operands; no FLOPs."""
        rows = x.shape[:-1] + (1,)
        norm = self.new(rows, x.grad, x.itemsize)
        clamped = self.new(rows, x.grad, x.itemsize)
        if x.grad:
            self.save(x)
            self.save(norm)
            self.save(clamped)
        return self.new(x.shape, x.grad, x.itemsize)

    def square(self, t: T) -> T:
        """``torch.square`` (ReLU²'s second half): ``pow(t, 2)`` keeps its input, as :meth:`keep_input`."""
        return self.keep_input(t)

    def sigmoid(self, t: T) -> T:
        """``torch.sigmoid``: keeps its output, as :meth:`keep_output`."""
        return self.keep_output(t)

    def subtract(self, a: T, b: T) -> T:
        """``a - b`` of one shape: a new tensor, nothing kept (as :meth:`add`)."""
        return self.add(a, b)

    def sum_keep(self, t: T) -> T:
        """``t.sum(-1, keepdim=True)``: a new [..., 1] tensor; ``SumBackward1`` keeps only sizes."""
        return self.new(t.shape[:-1] + (1,), t.grad, t.itemsize)

    def mul_broadcast(self, a: T, b: T, shape: Sequence[int]) -> T:
        """``a * b`` broadcast to ``shape`` (NeoMME's ``(scale * projection) * value_unit``): as :meth:`mul`."""
        return self.mul(a, b, shape)

    def slice_last(self, t: T, length: int, step: int = 1) -> T:
        """``t[..., a:b:step]``: a view (:meth:`narrow` along the last dimension)."""
        return self.narrow(t, len(t.shape) - 1, length, step)

    def join_last(self, parts: Sequence[T], stack: bool) -> T:
        """``torch.stack(parts, -1)`` or ``torch.cat(parts, -1)``: a new tensor; nothing kept."""
        shape = parts[0].shape + (len(parts),) if stack else parts[0].shape[:-1] + (sum(p.shape[-1] for p in parts),)
        return self.new(shape, any(p.grad for p in parts), parts[0].itemsize)

    def add_like(self, a: T, b: T) -> T:
        """``a + b`` of one shape, laid out as ``a`` (TensorIterator keeps a permuted input's order): :meth:`add`."""
        out = self.add(a, b)
        return T(out.shape, dense_strides_like(a), out.storage, out.grad, out.itemsize)

    def matmul_matrix(self, x: T, m: T) -> T:
        """``x @ m`` by a 2-D matrix read as a tensor (NeoMME's decoder by ``unembedding_projection.weight``):
        :meth:`matmul_by` (one ``mm`` of ``x`` viewed [rows, k])."""
        return self.matmul_by(x, m)

    def relaid(self, t: T, strides: Sequence[int] | None = None, itemsize: int | None = None) -> T:
        """``t`` as the operation that made it lays it out (NeoMME: CPU's flash kernel lays its output out as the
        query) or in the dtype it keeps (a product by a 0-dim factor does not promote): the same tensor."""
        return T(t.shape, t.strides if strides is None else tuple(strides), t.storage, t.grad,
                 t.itemsize if itemsize is None else itemsize)


    # -- YOSO's attention (issue 32: its custom autograd Function replayed node by node in LiveSim)

    def yoso_cumulation(self, mask: T, q: T, k: T, v: T, grad_strides: Sequence[int] | None = None) -> T:
        """``YosoCumulation.apply`` with ``use_expectation``, a custom autograd Function: its forward, run without a
        graph, computes E = (1 - acos(Q Kᵀ) / π)^hash_code_len, masked, and E·V (two ``bmm``, 2·BA·L·L·d each); it
        saves the mask, E, Q, K and V. Its own backward runs four ``bmm`` of the same size (∂L/∂out·Vᵀ, then the
        gradients of Q, K and V), whichever inputs need a gradient. Under autocast both matmuls run in bf16 (the
        Function's forward is inside the autocast region): E and the output are bf16. ``grad_strides``: how the
        output's gradient arrives laid out (its backward copies it if not contiguous; only the lifetime simulator
        uses it)."""
        ba, n, d = q.shape
        flops = 2 * ba * n * d * n
        grad = (q.grad or k.grad or v.grad) and self.grad_mode
        first = self.record("bmm", flops)  # Q Kᵀ
        size = self.lower or q.itemsize
        expectation = self.new((ba, n, n), False, size)
        second = self.record("bmm", flops)  # E V
        if grad:
            first.backward += 2 * flops
            second.backward += 2 * flops
            for t in (mask, expectation, q, k, v):
                self.save(t)
        return self.new((ba, n, d), grad, size)
