"""Modules by their inventory names, on top of :class:`~.ops.Ops`: the simulator a family's program drives.

``nn.Linear`` and ``nn.Conv1d`` (with peft's LoRA wrapper around them),
``nn.Embedding``, ``nn.LayerNorm``, parameters read as tensors, gradient
checkpointing's blocks: each reads its shapes from the inventory and whether
it trains from the plan, then runs :class:`~.ops.Ops`' operations inside
:meth:`~.ops.Ops._in` so the tape names the module. Imports nothing from the
families or the step (tests/properties/test_layering.py); the step keys'
values (a dropout's p, the activation) it still reads through
:func:`.declare.step_value`. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from ..errors import CalcError
from ..model import Inventory
from .declare import step_value
from .ops import Ops, Row
from .tensor import ADAPTER_BYTES, T


#: Marks in :attr:`Sim.used` a module whose LoRA adapters ran (``module + ADAPTED``): only those get a ``.grad``
#: (NeoMME's decoder reads ``unembedding_projection.weight`` without calling the module, so its adapters get none).
ADAPTED = ".<lora>"


@dataclass(frozen=True)
class LinearInfo:
    """How the step treats one ``nn.Linear``: shape, which of its tensors train, LoRA's rank on it."""

    out_features: int
    in_features: int
    bias: bool
    weight_trains: bool
    bias_trains: bool
    lora_r: int | None = None


class Sim(Ops):
    """Runs a family's forward program: counts FLOPs both ways and the storages autograd saves.

    ``trains`` maps each inventory tensor name to whether its storage gets a
    gradient; ``lora`` maps adapted module names to the rank.
    """

    def __init__(self, inv: Inventory, itemsize: int, trains: Mapping[str, bool], lora: Mapping[str, int],
                 checkpointing: bool, shapes: Mapping[str, tuple[int, ...]] | None = None) -> None:
        super().__init__(itemsize)
        self.inv = inv
        self.trains = trains
        self.lora = lora
        self.checkpointing = checkpointing
        #: Checkpointing's ``use_reentrant`` (the step sets it from its settings).
        self.reentrant = False
        #: The attention the programs run: "eager" or "sdpa" (the step sets it from its settings).
        self.attention = "eager"
        self.shapes = shapes if shapes is not None else {t.name: t.shape for t in inv.tensors}
        #: Inventory names of the parameters the forward reads.
        self.used: set[str] = set()
        #: Per checkpointed block, the storage ids its two runs made (the forward's, without a graph, and the
        #: backward's replay): ``first < id <= last``. The peak's bound (:mod:`.peak`) counts one block's at a time.
        self.blocks: list[tuple[int, int]] = []
        self._owners: dict[str, str] | None = None  # :meth:`storage_name`'s map, made when first asked

    # -- modules, by their inventory names

    def storage_name(self, name: str) -> str:
        """The inventory name owning ``name``'s storage (a tied decoder reads the word embeddings'): the key of
        autocast's cast cache, which caches by tensor."""
        if self._owners is None:
            self._owners = {t.name: t.tied_to or t.name for t in self.inv.tensors}
        return self._owners.get(name, name)

    def param_trains(self, name: str) -> bool:
        """Whether the parameter ``name`` gets a gradient; noted as used (an unused one gets no ``.grad``)."""
        self.used.add(name)
        return bool(self.trains.get(name, False))

    def linear_info(self, module: str) -> LinearInfo:
        out_f, in_f = self.shapes[module + ".weight"]
        bias = module + ".bias" in self.shapes
        return LinearInfo(out_f, in_f, bias, self.param_trains(module + ".weight"),
                          bias and self.param_trains(module + ".bias"), self.lora.get(module))

    def linear(self, module: str, x: T) -> T:
        """``nn.Linear`` (or peft's LoRA layer around it): ``addmm`` on the input seen as [tokens, in]."""
        with self._in(module):
            info = self.linear_info(module)
            out = self._linear(x, info.in_features, info.out_features, info.weight_trains, info.bias_trains,
                               weight=self.storage_name(module + ".weight") if self.lower else None)
            if info.lora_r is None:
                return out
            # peft keeps the adapters in float32 (get_peft_model's autocast_adapter_dtype) and casts
            # the input to them: x.to(float32) is a new tensor in a bf16 run, and lora_A keeps it.
            self.used.add(module + ADAPTED)
            r = info.lora_r
            wide = x if x.itemsize == ADAPTER_BYTES else self.new(x.shape, x.grad, ADAPTER_BYTES)
            a = self._linear(wide, info.in_features, r, True, False, ADAPTER_BYTES,
                             weight=module + ".lora_A")  # lora_A (lora_dropout: Identity)
            b = self._linear(a, r, info.out_features, True, False, ADAPTER_BYTES, weight=module + ".lora_B")  # lora_B
            scaled = self.pointwise(b)  # * scaling
            summed = self.new(out.shape, True, max(out.itemsize, scaled.itemsize))  # result + ..., promoted
            return summed if summed.itemsize == out.itemsize else self.new(out.shape, True, out.itemsize)  # .to(dtype)

    def embedding(self, module: str, ids: T, first: bool = False) -> T:
        """``nn.Embedding``: the backward needs the indices (if the table trains).

        ``first``: the model's input embeddings. Gradient checkpointing turns on
        ``enable_input_require_grads()``, whose hook makes this output need a
        gradient even when the table is frozen (so the backward reaches down here).
        """
        with self._in(module):
            if module in self.lora:
                raise CalcError("costs_lora_embedding", module=module)
            rows, dim = self.shapes[module + ".weight"]
            trains = self.param_trains(module + ".weight")
            if trains:
                self.save(ids)
            return self.new((*ids.shape, dim), trains or (first and self.checkpointing))

    def layer_norm(self, module: str, x: T) -> T:
        """``nn.LayerNorm``: keeps its input, and the mean and 1/std per row (in the input's dtype)."""
        with self._in(module):
            weight, bias = self.param_trains(module + ".weight"), self.param_trains(module + ".bias")
            trains = weight or bias
            grad = (x.grad or trains) and self.grad_mode
            out = self.new(x.shape, grad, self._result(x))  # under autocast in the input's dtype (mean, 1/std float32)
            if grad:
                self.save(x)
                rows = x.shape[:-1] + (1,)
                self.save(self.new(rows, False))
                self.save(self.new(rows, False))
            return out

    def rms_norm_llama(self, module: str, x: T) -> T:
        """``LlamaRMSNorm`` (EuroBERT's, UltraBERT's): ``x.to(float32)``; ``pow(2)`` keeps it; ``mean``, ``+ eps``
        keep nothing; ``rsqrt`` keeps its output [.., 1]; ``x · rsqrt`` keeps both factors; ``.to(input dtype)``;
        ``weight ·`` keeps the normalised rows for the weight's gradient (and the weight, a parameter, for theirs).
        No FLOPs counted (FlopCounterMode counts none of these)."""
        trains = self.param_trains(module + ".weight")
        x32 = x if self.itemsize == 4 else self.new(x.shape, x.grad, 4)
        if x32.grad:
            self.save(x32)  # pow
        r = self.new(x.shape[:-1] + (1,), x32.grad, 4)
        if r.grad:
            self.save(r)  # rsqrt keeps its result; the product keeps both factors
            self.save(x32)
        h = self.new(x.shape, r.grad, 4)
        h = h if self.itemsize == 4 else self.new(x.shape, h.grad)
        if trains:
            self.save(h)
        return self.new(x.shape, h.grad or trains)

    def rms_norm_t5(self, module: str, x: T) -> T:
        """``T5LayerNorm``: ``x.to(float32).pow(2).mean(-1)`` (pow keeps its float32 input: x itself in fp32, a copy in
        bf16), ``rsqrt`` (keeps its [B, L, 1] output), ``x * rsqrt`` (keeps x and the rsqrt; float32 by promotion),
        back to the weight's dtype in bf16 (a copy), then ``weight *`` (keeps that if the weight trains). A float32
        input runs ``LlamaRMSNorm``'s operations in its order (:meth:`rms_norm_llama`)."""
        if x.itemsize == 4:
            return self.rms_norm_llama(module, x)
        w = self.param_trains(module + ".weight")
        g = x.grad
        wide = self.new(x.shape, g, 4)
        rows = self.new(x.shape[:-1] + (1,), g, 4)
        if g:
            self.save(wide)
            self.save(rows)
            self.save(x)
        self.new(x.shape, g, 4)
        scaled = self.new(x.shape, g, x.itemsize)
        if w:
            self.save(scaled)
        return self.new(x.shape, g or w, x.itemsize)

    # -- gradient checkpointing (use_reentrant True or False)

    def layer(self, fn: Callable[["Sim", T], T], x: T, also: Sequence[T] = ()) -> T:
        """One checkpointable block: run as is, or under ``torch.utils.checkpoint`` when checkpointing is on.
        ``also``: the block's other tensor arguments, which a non-reentrant checkpoint's frame keeps until the
        block's backward is done (ModernBERT's rotary tables and mask); only :class:`~.lifetime.LiveSim` uses them.

        Checkpointed, the forward keeps nothing but the block's input (reentrant:
        ``CheckpointFunction`` saves it and runs the block without a graph; non-reentrant:
        the block runs with a graph whose saved tensors are dropped, as the same activations);
        the backward runs the block's forward again with a graph, then its backward: both
        counted in the backward. Reentrant reruns the whole block; non-reentrant stops at its
        last pack (:meth:`replay`), so a product that packs it is not run again.
        """
        if not self.checkpointing:
            return fn(self, x)
        self.save(x)
        first = self._next
        self.grad_mode = False
        out = fn(self, x)
        self.grad_mode = True
        rows, packed = self.replay(fn, x)
        # Non-reentrant checkpointing stops recomputing at the pack of the last tensor the block saves
        # (torch.utils.checkpoint's early stop counts packs, parameters and repeats included): what follows,
        # and a product whose inputs are that pack, is not run again; only its backward runs.
        # Under autocast a frozen weight's bf16 copy is not waited for (:meth:`~.ops.Ops.save`).
        last = len(rows) if self.reentrant else packed
        for i, row in enumerate(rows):
            if row.op != "save":
                self.tape.append(Row(row.module, row.op, 0, (row.forward if i < last else 0) + row.backward))
        self.blocks.append((first, self._next))
        return T(out.shape, out.strides, out.storage, x.grad, out.itemsize)

    def replay(self, fn: Callable[["Sim", T], T], x: T) -> tuple[list[Row], int]:
        """The block ``fn`` run on a fresh tape, with a graph and without checkpointing, as the backward
        reruns it: its rows (what that run keeps is freed within the backward, so it is no activation), and
        how many of them run before its last pack (:attr:`~.ops.Ops.last_pack`: where a non-reentrant
        recomputation stops)."""
        tape, saved, checkpointing, packed = self.tape, self.saved, self.checkpointing, self.last_pack
        self.tape, self.saved, self.checkpointing, self.last_pack = [], {}, False, 0
        try:
            fn(self, T(x.shape, x.strides, x.storage, x.grad, x.itemsize))
            return self.tape, self.last_pack
        finally:
            self.tape, self.saved, self.checkpointing, self.last_pack = tape, saved, checkpointing, packed
            self.grad_mode = True

    # -- the step's config keys (dropout probabilities, the activation: :class:`StepKey`)

    def drops(self, key: str) -> bool:
        """Whether the dropout configured by ``key`` is active: p > 0 keeps a mask, p = 0 returns its input.

        ``key`` is one of the family's :attr:`CostModel.keys` (kept by ``build`` in
        ``inv.config``); a family that declares none runs with transformers' defaults
        for BERT-like models (every dropout 0.1, so active).
        """
        return step_value(self.inv, key, 0.1) > 0

    def act(self, key: str, t: T) -> T:
        """The activation the config names under ``key`` (``hidden_act``), as :meth:`activation` models it."""
        return self.activation(step_value(self.inv, key, "gelu"), t)

    # -- operations for longformer, big_bird

    def unused(self, fn: Callable[[], T]) -> T:
        """A branch the forward computes but the loss never reaches (BigBird's pooler under an MLM head).

        Its FLOPs count in the forward, and autograd saves what its operations need
        (saving happens as the forward runs, whatever the loss later reads); but no
        gradient flows through it, so its backward FLOPs do not count and its
        parameters end the step with ``.grad`` None (no gradient, no optimizer state).
        """
        start, used = len(self.tape), set(self.used)
        out = fn()
        for row in self.tape[start:]:
            row.backward = 0
        self.used = used
        return out

    def discarded(self, fn: Callable[[], T]) -> T:
        """A branch the loss never reaches whose output Python drops inside the forward (DeBERTa's relative table
        when no term reads it): to the FLOPs and the activations the same as :meth:`unused`; the op-by-op engine
        frees what its nodes save with that output (:meth:`.lifetime.LiveSim.discarded`), not at the forward's end."""
        return self.unused(fn)

    # -- operations for mobilebert, squeezebert, convbert, funnel

    def scale_shift(self, x: T, weight: str, bias: str) -> T:
        """``x * weight + bias`` with two parameter vectors (MobileBERT's ``NoNorm``).

        ``mul`` (derivatives.yaml ``mul.Tensor``): the gradient of ``x`` needs the
        weight (a parameter: not counted), the weight's needs ``x``, so ``x`` is kept
        only when the weight trains; the ``add`` of the bias keeps nothing.
        """
        w_trains, b_trains = self.param_trains(weight), self.param_trains(bias)
        if w_trains and self.grad_mode:
            self.save(x)
        if x.grad:
            self.pack()  # the weight, for x's gradient
        scaled = self.new(x.shape, x.grad or w_trains)
        return self.new(x.shape, scaled.grad or b_trains)

    def conv1x1(self, module: str, x: T) -> T:
        """``nn.Conv1d`` with kernel size 1 on [B, C_in, L] (SqueezeBERT), or peft's LoRA layer around it.

        ``convolution`` (derivatives.yaml) has one formula for input, weight and bias,
        ``convolution_backward(grad, input, weight, ...)``: the input is kept whenever
        any of the three needs a gradient, trained weight or not. FlopCounterMode counts
        2·B·L·C_out·C_in/g forward and for the input's gradient, but the weight's
        gradient as an ungrouped convolution: 2·B·L·C_out·C_in, g times more
        (``conv_backward_flop`` passes [C_out, B, L] as the weight shape).
        """
        with self._in(module):
            out_c, in_per_group = self.shapes[module + ".weight"][:2]
            w_trains = self.param_trains(module + ".weight")
            b_trains = module + ".bias" in self.shapes and self.param_trains(module + ".bias")
            out = self._conv1x1(x, in_per_group, out_c, w_trains, b_trains)
            r = self.lora.get(module)
            if r is None:
                return out
            self.used.add(module + ADAPTED)
            # peft's _ConvNd: lora_A = Conv1d(C_in, r, 1), lora_B = Conv1d(r, C_out, 1, groups=g), both float32;
            # result + lora_B(lora_A(x.to(float32))) * scaling, then .to(dtype).
            groups = x.shape[1] // in_per_group
            wide = x if x.itemsize == ADAPTER_BYTES else self.new(x.shape, x.grad, ADAPTER_BYTES)
            a = self._conv1x1(wide, x.shape[1], r, True, False, ADAPTER_BYTES, weight=module + ".lora_A")
            b = self._conv1x1(a, r // groups, out_c, True, False, ADAPTER_BYTES, weight=module + ".lora_B")
            scaled = self.pointwise(b)
            summed = self.new(out.shape, True, max(out.itemsize, scaled.itemsize))
            return summed if summed.itemsize == out.itemsize else self.new(out.shape, True, out.itemsize)

    def conv1d(self, module: str, x: T) -> T:
        """``nn.Conv1d`` of any odd kernel size k with padding k // 2 (ConvBERT's depthwise convolution):
        what :meth:`conv1x1` keeps and counts, times k (the weight's gradient again as if ungrouped)."""
        with self._in(module):
            out_c, in_per_group, kernel = self.shapes[module + ".weight"]
            if module in self.lora:
                raise CalcError("costs_lora_conv", module=module, kernel=kernel)
            w_trains = self.param_trains(module + ".weight")
            b_trains = module + ".bias" in self.shapes and self.param_trains(module + ".bias")
            return self._conv1x1(x, in_per_group, out_c, w_trains, b_trains, kernel=kernel)

    def plus_param(self, t: T, name: str) -> T:
        """``t += parameter`` in place (a bias added by hand): keeps nothing; the result needs a gradient if it trains."""
        trains = self.param_trains(name)
        return T(t.shape, t.strides, t.storage, (t.grad or trains) and self.grad_mode, t.itemsize)

    def grouped_linear(self, module: str, x: T) -> T:
        """ConvBERT's ``GroupedLinearLayer`` on [B, L, in]: a view [B·L, G, in/G] permuted to [G, B·L, in/G],
        ``matmul`` by the bare weight [G, in/G, out/G] (a ``bmm``: keeps the input if the weight trains),
        permuted back and reshaped to [B, L, out] (a copy unless B·L = 1), plus the bias (keeps nothing)."""
        with self._in(module):
            groups, in_g, out_g = self.shapes[module + ".weight"]
            w_trains = self.param_trains(module + ".weight")
            b_trains = self.param_trains(module + ".bias")
            b, n = x.shape[0], x.shape[1]
            split = self.transpose(self.view(x, (-1, groups, in_g)), 0, 1)
            flops = 2 * groups * (b * n) * in_g * out_g
            w = None
            if self.lower is not None:  # autocast: matmul on bf16 copies (kept), the bias add promotes to fp32
                split = self.lowered(split)
                w = self.weight_copy(self.storage_name(module + ".weight"), (groups, in_g, out_g), w_trains)
            self.contract("bmm", flops, ((split.grad, flops, w), (w_trains, flops, split)))
            out = self.new((groups, b * n, out_g), split.grad or w_trains, self.lower)
            out = self.reshape(self.transpose(out, 0, 1), (b, n, groups * out_g))
            return self.new(out.shape, out.grad or b_trains)

    def param(self, name: str) -> T:
        """A parameter used directly as an operand (Funnel's ``r_kernel``, ``seg_embed``): never counted as saved."""
        trains = self.param_trains(name)
        t = self.new(self.shapes[name], trains)
        self.storages[t.storage] = 0
        return t

    # -- operations for deberta, deberta-v2, modernbert

    def parameter(self, name: str, shape: Sequence[int]) -> T:
        """A parameter the forward reads as a tensor (``rel_embeddings.weight``): its storage is never counted."""
        t = self.new(shape, self.param_trains(name))
        self.storages[t.storage] = 0
        return t

    def parameter_t(self, name: str) -> T:
        """``param.t()`` of a 2-D parameter read as a tensor (MobileBERT's MLM head concatenates
        ``decoder.weight.t()``): a view of a storage never counted."""
        rows, cols = self.shapes[name]
        return self.transpose(self.parameter(name, (rows, cols)), 0, 1)

    def matmul_param(self, x: T, name: str) -> T:
        """``torch.matmul(x, param.t())`` with ``x`` [..., k] and a parameter [n, k] (DeBERTa's non-legacy MLM head
        by the word table): one ``mm`` on ``x`` viewed [rows, k], whose backward keeps ``x`` if the table trains."""
        n, k = self.shapes[name]
        flat = self.reshape(x, (-1, k))
        return self.mm(flat, self.param_trains(name), flat.shape[0], k, n, (*x.shape[:-1], n))

    def conv1d_length(self, module: str, x: T, out_len: int, w: T | None = None) -> T:
        """``nn.Conv1d`` on ``x`` [B, C_in, L]: ``convolution_backward`` keeps the input (and the weight).

        FlopCounterMode's ``conv_flop``: forward 2·B·L_out·C_out·(C_in/G)·K; backward, the input's gradient
        the same, and the weight's gradient counted as a convolution of the input with the output's gradient,
        2·B·L_out·C_out·C_in·K (without the groups' 1/G).
        """
        with self._in(module):
            c_out, c_in_group, k = self.shapes[module + ".weight"]
            b, c_in, _ = x.shape
            w_grad = self.param_trains(module + ".weight")
            b_grad = module + ".bias" in self.shapes and self.param_trains(module + ".bias")
            flops = 2 * b * out_len * c_out * c_in_group * k
            if self.lower is not None:  # autocast: conv1d on bf16 copies; convolution_backward keeps both
                if w is None:  # ``w``: the weight's copy, made by the caller (the lifetime simulator casts in order)
                    w = self.weight_copy(self.storage_name(module + ".weight"), (c_out, c_in_group, k), w_grad)
                x = self.lowered(x)
            self.contract("convolution", flops, ((x.grad, flops, None), (w_grad, 2 * b * out_len * c_out * c_in * k, None)),
                          x if (x.grad or w_grad or b_grad) else None)
            if w is not None and (x.grad or w_grad or b_grad) and self.grad_mode:
                self.save(w)
            return self.new((b, c_out, out_len), x.grad or w_grad or b_grad, self.lower)

    # -- operations for nystromformer, yoso

    def conv_heads(self, module: str, x: T, w: T | None = None) -> T:
        """Nyströmformer's and YOSO's skip convolution over the values: ``nn.Conv2d(A, A, (k, 1), padding=(k // 2,
        0), groups=A, bias=False)`` on ``x`` [B, A, L, d] (an odd k keeps the shape).

        ``convolution`` keeps its input whenever the input or the weight needs a gradient (one formula,
        derivatives.yaml). FlopCounterMode's ``conv_flop``: forward 2·B·(L·d)·A·1·k (one input channel per
        group); the input's gradient the same; the weight's gradient as an ungrouped convolution of the input
        with the output's gradient, 2·B·(L·d)·A·A·k (``conv_backward_flop``, as :meth:`conv1d_length`)."""
        with self._in(module):
            heads, _, kernel, _ = self.shapes[module + ".weight"]
            if module in self.lora:
                raise CalcError("costs_lora_conv", module=module, kernel=kernel)
            w_grad = self.param_trains(module + ".weight")
            b, a, n, d = x.shape
            flops = 2 * b * n * d * a * kernel
            if self.lower is not None:  # autocast: conv2d on bf16 copies; convolution_backward keeps both
                x = self.lowered(x)
                if w is None:  # ``w``: the weight's copy, made by the caller (the lifetime simulator casts in order)
                    w = self.weight_copy(self.storage_name(module + ".weight"), (heads, 1, kernel, 1), w_grad)
            self.contract("convolution", flops, ((x.grad, flops, None), (w_grad, flops * heads, None)),
                          x if (x.grad or w_grad) else None)
            if w is not None and (x.grad or w_grad) and self.grad_mode:
                self.save(w)
            return self.new(x.shape, x.grad or w_grad, self.lower)
