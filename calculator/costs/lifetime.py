"""The peak of live memory op by op (issue 32): every storage's lifetime through the forward and the backward.

:class:`LiveSim` is the simulator of :mod:`.modules` that also records, for every operation a family's
program runs, the autograd node PyTorch creates: which inputs it sends gradients to, which storages it
saves (held until the node has run), and what its backward allocates (the measured rules of
``tests/crosscheck/reference/PEAK.md``). :func:`backward_timeline` then runs the backward as the autograd
engine does on one CPU thread: the ready node of highest sequence number first (``AccumulateGrad`` at
once); each node allocates its gradients (and ``sum_to``'s reductions), then releases its incoming
gradient and its saved storages; a gradient sent to a tensor that already has one pending is added out
of place (``InputBuffer::accumulate``: a new storage, both summands freed); ``AccumulateGrad`` keeps the
incoming gradient itself as ``.grad``. The live bytes are known at every allocation, so the backward's
maximum is exact.

**The forward is replayed where the program declares every release.** A storage nothing saves dies when
Python drops its last name, which depends on the model's Python code (transformers 5.23's modeling files). The
family's program says so: :meth:`~.ops.Ops.scope` / :meth:`~.ops.Ops.end_scope` mark a function of the model
(a storage made inside, not saved and not returned, is gone when it returns; ``end_scope`` names every tensor
returned, a tuple's too), :meth:`~.ops.Ops.release` / :meth:`~.ops.Ops.rebind` a name dropped or rebound inside
it (``x = self.dropout(x)``, an expression's temporary), and a composite operation drops its own temporaries
(``matmul``'s reshape copies, ``native_layer_norm``'s mean and 1/std, dropout's noise, ``gelu_new``'s
intermediate tensors) unless autograd keeps them. :func:`replay_forward` frees each storage right after the
allocation at which its last name goes. A program that declares all of them calls
:meth:`~.ops.Ops.exact_forward` (every program that opts in here, in eager attention: BERT's, ERNIE's,
RoBERTa's, XLM-R's, CamemBERT's, Data2VecText's, ELECTRA's, DistilBERT's and ALBERT's classes; ModernBERT's
and EuroBERT's (an even head size), eager and SDPA; DeBERTa-v2's, whose disentangled attention adds ``gather``,
``repeat``, ``masked_fill`` and the scale's division): the forward's
maximum and the loss's (``sum(o.float().sum() for o in outputs)``, each temporary replayed) are then exact, and
the step's peak is the largest of the four phases wherever it lies (a frozen backbone, LoRA, a tiny batch: in the
forward). A program that does not (none today) has each storage counted until its scope's end at the latest: an
upper bound, and the peak is given only where that bound (and the loss's) lies strictly below the exact maximum of
the backward or the optimizer step. The inference span
(:mod:`.inference`) replays the same forward without a graph.

**Non-reentrant checkpointing** (transformers 5.23's default) is replayed too (:meth:`LiveSim.layer`): in the
forward a checkpointed layer's saved tensors are packed into holders, not kept (each storage dies when Python
drops it), and its input is kept by the checkpoint's frame; in the backward the layer's first node holding saved
tensors recomputes it (:func:`_recompute`: the same storages in the same order, each gone where Python drops it
unless the layer's nodes hold it, up to its last pack, where the early stop unwinds it); each node drops what it
unpacked as its ``apply`` returns (:meth:`Backward.applied`: before ``validate_outputs`` sums a bias's
gradient); the frame, and the input, go with the layer's last node holding saved tensors.

**Reentrant checkpointing** (``use_reentrant=True``, torch 2.13's ``CheckpointFunction``) is replayed for the
families whose cost model declares ``reentrant=True`` (:meth:`LiveSim.reentrant_layer`): the forward runs each layer without a
graph, its ``CheckpointFunctionBackward`` saving the input and the positional arguments (a keyword argument stays
with ``ctx.run_function`` until the graph goes); that node's backward materializes zeros for the layer's other
outputs, runs the layer again with a graph (:func:`_recompute` to its end), then ``torch.autograd.backward``
through it as a graph task of its own (:func:`_reentrant_backward`), and returns the detached input's ``.grad``.
Under autocast the detached input is a leaf needing a gradient in the recomputation, whose bf16 copy autocast caches
(one for Q, K and V, where the forward made one per Linear: :meth:`LiveSim._leaf_copy`).

**Mixed precision** (``torch.autocast("cpu", dtype=torch.bfloat16)`` around the forward, weights float32; a program
opts in with :meth:`~.ops.Ops.exact_autocast`): each Linear casts its bias, its weight and a float32 input to bf16,
in that order (:meth:`LiveSim._linear`); a trained parameter's copy is cached (held to the forward's end, or by the
node that saves it until its backward; its ``ToCopyBackward0`` casts the gradient back to float32), a frozen one's and
the input's are the Linear's temporaries unless saved, but for a leaf needing a gradient (a frozen table's output under
checkpointing, a reentrant block's detached input), whose copy is cached as a parameter's; bf16 + float32 residual adds
promote (the gradient cast back for the bf16 side). The inference span keeps every cached copy to its end.

What is modelled: the operations BERT's classes run (a program opts in with :meth:`exact_lifetimes`), every
parameter trained or some frozen, LoRA, checkpointing (reentrant: where the cost model declares ``reentrant``), SDPA, bf16 autocast. Anything else (an operation without its node, an input
whose producer is unknown, a saved storage no node holds) makes :attr:`LiveSim.failed` say why, and the
step keeps the optimizer-step figure or no figure. Standard library only.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

from .modules import ADAPTED, Sim
from .ops import Ops
from .peak import Item, Peak, rounded
from .tensor import ADAPTER_BYTES, T, _dense, contiguous_strides, dense_strides_like, is_contiguous, view_strides

#: ``AccumulateGrad`` nodes have the largest sequence number: they run as soon as they are ready.
ACCUMULATE = 1 << 62
#: The loss tensor and ``ones_like(loss)``: 4 bytes each, live through the backward.
SCALAR = 4
#: A node of a checkpointed block that saves a parameter only (NoNorm's product by a frozen weight, for the input's
#: gradient): no storage of the step, but a pack, so its unpack is the block's recomputation (measured, MobileBERT).
PARAMETER_PACK = 1 << 61


def _dense_strides(shape: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    """The strides of a new dense tensor of ``shape`` whose dimensions are ordered as ``strides`` order them
    (TensorIterator's output for a first input so laid out). A broadcast dimension (stride 0, more than one element:
    an expanded view, ``repeat_kv`` of one K/V head) is ambiguous to TensorIterator: :func:`_iterator_order`."""
    if _broadcast(shape, strides):
        order = _iterator_order(shape, strides)
    else:
        order = sorted(range(len(shape)), key=lambda i: -strides[i])
    out = [0] * len(shape)
    step = 1
    for i in reversed(order):
        out[i] = step
        step *= max(shape[i], 1)
    return tuple(out)


def _broadcast(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether a dimension of more than one element has stride 0 (an expanded view: its elements overlap)."""
    return any(st == 0 and n > 1 for st, n in zip(strides, shape))


def _iterator_order(shape: Sequence[int], strides: Sequence[int]) -> list[int]:
    """TensorIterator's ``reorder_dimensions`` for one input, outermost dimension first: an insertion sort from the
    innermost, swapping two dimensions only where neither stride is 0 and the outer one's is smaller (equal strides:
    the larger size outward); a broadcast dimension compares with none, so it keeps its place (measured: a repeated
    one-wide K's ``kᵀ * scale`` in SDPA's math path is laid out so that matmul's reshape views it)."""
    def swap(d0: int, d1: int) -> int:
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[d0] > shape[d1] else 0

    perm = list(reversed(range(len(shape))))  # innermost first
    for i in range(1, len(perm)):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return list(reversed(perm))


@dataclass
class Node:
    """An autograd node: where its gradients go (``nexts``: node indices, None for an input needing none),
    the storages it saves, and ``run`` (the incoming gradient -> one gradient per next, allocating)."""

    seq: int
    name: str
    module: str
    nexts: list[int | None]
    saved: list[int]
    run: Callable[["Backward", T], list[T | None]]
    param: str | None = None  # AccumulateGrad: the parameter (its storage's name)
    grad_sids: list[int] = field(default_factory=list)  # AccumulateGrad, once run: the storage kept as .grad
    #: A node of several outputs (``SplitBackward0``): each gradient arriving fills its own slot, none is summed.
    slots: bool = False
    #: The non-reentrant checkpointed block the node was made in (:class:`Block`), None outside one.
    block: int | None = None
    #: Where a node made between modules ran (``layers.0.mlp: mul``), as :meth:`LiveSim.new` names its storages:
    #: what a backward peak is said to lie at when the node has no :attr:`module`.
    between: str = ""
    #: AccumulateGrad of a parameter whose gradient may arrive in another layout (an einsum's permuted operand):
    #: it keeps a contiguous copy then (``clone_obey_contract``), not the gradient itself.
    copies: bool = False


@dataclass
class Block:
    """A layer under non-reentrant ``torch.utils.checkpoint``: its input (kept by the checkpoint's frame until the
    last of the block's nodes holding saved tensors has run), the storage ids its forward made (``first < id <=
    last``), and ``stop``: the last storage made before its last pack, where the recomputation stops early."""

    input: int
    first: int
    last: int
    stop: int
    #: The block's other tensor arguments (:meth:`LiveSim.checkpoint_argument`, :meth:`LiveSim.layer_argument`), kept by its frame as its input is.
    held: tuple[int, ...] = ()
    #: The block's other tensor arguments (storage ids), kept by the frame with its input (:meth:`LiveSim.layer`), and
    #: the ``partial``'s keywords (DeBERTa-v2's mask, relative positions and table: :meth:`LiveSim.frame_keeps`).
    also: tuple[int, ...] = ()
    #: Reentrant checkpointing (:meth:`LiveSim.reentrant_layer`): the block's output storage, the node its gradient
    #: enters the block's own graph at, the detached input's ``AccumulateGrad`` and the block's nodes (``first <=
    #: index < last``), which only the nested ``torch.autograd.backward`` of its ``CheckpointFunctionBackward`` runs.
    reentrant: bool = False
    output: int = 0
    #: The block's other outputs (a layer's returned probabilities): ``CheckpointFunctionBackward`` gets no gradient
    #: for them, so ``PyNode::apply`` materializes zeros of each (``ctx.materialize_grads``), held until it returns,
    #: and the nested backward starts from every output that needs a gradient (a ``GraphRoot``).
    extras: tuple[T, ...] = ()
    #: Per other output needing a gradient, the node of the block's own graph it enters at (an argument returned as
    #: it came: its detached leaf's ``AccumulateGrad``).
    extra_edges: tuple[int | None, ...] = ()
    root: int = 0
    leaf: int = 0
    nodes: tuple[int, int] = (0, 0)


@dataclass
class Backward:
    """The backward's ledger: storages by id with their holders' count, live bytes, the maximum."""

    live: int
    sizes: dict[int, int] = field(default_factory=dict)
    refs: dict[int, int] = field(default_factory=dict)
    best: int = -1
    best_op: str = ""
    best_module: str = ""
    best_live: dict[int, int] = field(default_factory=dict)
    module: str = ""
    _next: int = 0
    #: A checkpointed block's node running: the recomputed storages it unpacked, dropped as its ``apply`` returns
    #: (:meth:`applied`), before ``validate_outputs`` sums a broadcast gradient (not at ``release_variables``).
    unpacked: list[int] = field(default_factory=list)
    #: The live bytes at every observation (each allocation), and the ledger's storages each rounded up to CUDA's
    #: 512-byte block then (:func:`.peak.rounded`): the step's timeline and its 512-rounded peak (issue 32, 35).
    trace: list[tuple[int, int]] = field(default_factory=list)
    rounded: int | None = None
    #: The gradients the running node got (a node of several outputs: one per slot), its ``run`` given the first.
    incoming: list[T] = field(default_factory=list)

    def check(self, op: str) -> None:
        if self.rounded is None:  # the first observation: the ledger as the caller set it up, rounded
            self.rounded = sum(rounded(self.sizes[s]) for s in self.refs)
        self.trace.append((self.live, self.rounded))
        if self.live > self.best:
            self.best, self.best_op, self.best_module = self.live, op, self.module
            self.best_live = {s: self.sizes[s] for s in self.refs}

    def alloc(self, shape: Sequence[int], itemsize: int, op: str, strides: Sequence[int] | None = None) -> T:
        """A new gradient storage (its holder: the caller), counted at once."""
        self._next -= 1
        n = 1
        for d in shape:
            n *= d
        self.sizes[self._next] = n * itemsize
        self.refs[self._next] = 1
        self.live += n * itemsize
        if self.rounded is not None:
            self.rounded += rounded(n * itemsize)
        self.check(op)
        shape = tuple(shape)
        return T(shape, tuple(strides) if strides is not None else contiguous_strides(shape), self._next, True,
                 itemsize)

    def scattered(self, zeros: Sequence[int], shape: Sequence[int], itemsize: int, zeros_op: str, op: str) -> T:
        """The backward of an indexing op as PyTorch writes it (``index_backward``, ``gather_backward``,
        ``index_put``'s ``zeros_like(values)``): a tensor of zeros of shape ``zeros``, then the result of ``shape``
        made out of place from it by ``op``, then the zeros freed (measured for each: both live at once)."""
        first = self.alloc(zeros, itemsize, zeros_op)
        result = self.alloc(shape, itemsize, op)
        self.drop(first.storage)
        return result

    def new_storage(self, nbytes: int, op: str, refs: int = 1) -> int:
        """A storage of ``nbytes`` made in the backward that is no gradient (a checkpointed block's recomputed
        tensor), held ``refs`` times, counted at once."""
        self._next -= 1
        self.sizes[self._next] = nbytes
        self.refs[self._next] = refs
        self.live += nbytes
        if self.rounded is not None:  # counted in the 512-rounded ledger too (drop takes it off there)
            self.rounded += rounded(nbytes)
        self.check(op)
        return self._next

    def applied(self) -> None:
        """The node's ``apply`` has returned: a checkpointed block's unpacked tensors (its locals) are gone."""
        for s in self.unpacked:
            self.drop(s)
        self.unpacked = []

    def hold(self, sid: int) -> None:
        if sid in self.refs:
            self.refs[sid] += 1

    def drop(self, sid: int) -> None:
        if sid in self.refs:
            self.refs[sid] -= 1
            if not self.refs[sid]:
                del self.refs[sid]
                self.live -= self.sizes[sid]
                if self.rounded is not None:
                    self.rounded -= rounded(self.sizes[sid])

    def alias(self, g: T, shape: Sequence[int], strides: Sequence[int]) -> T:
        """A view of ``g`` (its storage held once more)."""
        self.hold(g.storage)
        return T(tuple(shape), tuple(strides), g.storage, True, g.itemsize)

    def reshape(self, g: T, shape: Sequence[int], op: str = "aten.clone") -> T:
        """``grad.reshape(shape)``: a view when the strides allow it, else a contiguous copy."""
        strides = view_strides(g.shape, g.strides, shape)
        if strides is not None:
            return self.alias(g, shape, strides)
        return self.alloc(shape, g.itemsize, op)


class LiveSim(Sim):
    """:class:`~.modules.Sim` recording the autograd graph and each storage's holders (see the module's doc)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.nodes: list[Node] = []
        self.edge: dict[int, int] = {}  # id(T) -> the node its gradient goes to
        self.keep: list[T] = []  # the T objects ``edge`` refers to, kept alive so ids stay theirs
        self.pending: list[int] = []  # storages saved by the operation being recorded
        self.failed: str | None = None
        self.opted = False
        self.input_ids: int | None = None
        self.scopes: list[tuple[int, int, frozenset[int]]] = []  # (mark, last storage id, storages returned)
        #: Storage id -> the storage after whose allocation the model's Python drops its last name (:meth:`release`).
        self.deaths: dict[int, int] = {}
        #: The program declares every release (:meth:`~.ops.Ops.exact_forward`): the forward is replayed exactly.
        self.forward_exact = False
        #: Storage id -> the aten operation that returned it (what ``LiveBytes`` names the peak's op by).
        self.op_of: dict[int, str] = {}
        self._aten = ""  # the aten operation whose outputs :meth:`new` is making
        #: The layers run under non-reentrant checkpointing (:meth:`layer`), and the one running (its index).
        self.blocks_run: list[Block] = []
        self.frame_kept: tuple[int, ...] = ()  # :meth:`frame_keeps`
        self._block: int | None = None
        self._stop = 0
        self.made_in: dict[int, str] = {}
        self.extra: dict[int, int] = {}  # storages only the forward's bound counts (:meth:`transients`)
        self.accumulators: dict[str, int] = {}
        self._op_name: str | None = None
        self._last = ""  # the last module an operation ran in
        self._adapter: str | None = None  # "lora_A" or "lora_B" while peft's factor runs
        self._weight: str | None = None  # :meth:`matmul_param`'s parameter, read by :meth:`mm`
        self._label = ""  # the operation running between modules
        self.storage_of = {t.name: t.tied_to or t.name for t in self.inv.tensors}
        #: A view's storage -> the ``CopySlices`` node its base's history ends in (:meth:`add_to_view`).
        self._view_bases: dict[int, int] = {}
        #: Storages saved by nodes the loss never reaches (:meth:`unused`): freed with the forward's locals.
        self.unreached: set[int] = set()
        #: Storages saved only by the nodes of a :meth:`discarded` branch -> (the branch's output, whether its nodes held
        #: a non-reentrant checkpoint's holders instead): they die with that output (:func:`_deaths`).
        self.hangs_on: dict[int, tuple[int, bool]] = {}
        #: Tensors every later checkpointed block gets besides its input (:meth:`checkpoint_argument`).
        self._block_args: list[int] = []
        #: Autocast's cached copies (a trained parameter's bf16 copy): the cache, not Python, holds them until the
        #: autocast region exits (the forward's end), so no scope's end frees them (:func:`_deaths`).
        self.cached: set[int] = set()
        #: Storages the model's outputs hold (:meth:`~.ops.Ops.held_by_outputs`: a decoder's key/value cache): live to
        #: the forward's end and through the loss, gone with the outputs before the backward unless a node saved them.
        self.outlive: set[int] = set()
        #: Storages an output the class does not return holds (:meth:`~.ops.Ops.held_by_outputs`): to the forward's end.
        self.forward_held: set[int] = set()
        #: The program models autocast's copies too (:meth:`~.ops.Ops.exact_autocast`); else no figure under it.
        self.autocast_exact = False
        self._bias_copy: T | None = None  # the bias's autocast copy :meth:`_linear` made for :meth:`mm`
        self._casting = False  # inside a Linear under autocast (:meth:`_linear`): its input's copy is released there
        #: Storages every checkpointed layer takes as an argument besides its input (:meth:`layer_argument`).
        self.arguments: set[int] = set()
        #: Reentrant checkpointing: the recomputation :func:`run_step` sets up, and the nodes the nested backwards ran.
        self.recompute: Callable[[Backward, int], dict[int, int]] | None = None
        self.ran: set[int] = set()
        #: Per :meth:`end_scope`, (mark, last storage, the tensors returned besides the first): a reentrant block's
        #: other outputs are those its outermost function returns (:meth:`reentrant_layer`).
        self.returned: list[tuple[int, int, tuple[T, ...]]] = []
        #: Reentrant checkpointing: each later layer's positional tensor arguments (saved by its node) and the
        #: storages its ``partial``'s keywords keep until the graph goes (:meth:`layer_argument`).
        self.positional: list[T] = []
        self.graph_held: set[int] = set()
        #: The next reentrant layer's own positional tensor arguments (:meth:`positional_arguments`), in order.
        self.layer_args: list[T] = []
        #: Transients that are a buffer's new storage (:meth:`~.ops.Ops.buffer_transient`): a buffer at the peak.
        self.buffer_made: set[int] = set()
        #: An einsum's ``bmm`` output (storage id) -> its node: the base an in-place op on a view rebases (Funnel).
        self._einsum_bases: dict[int, int | None] = {}
        #: :meth:`linear_strided` under LoRA: peft's base layer runs ``at::linear``'s matmul path (:meth:`linear`).
        self._strided_lora = False
        self._lora_base = False  # inside it: the base layer's own path
        #: Leaves needing a gradient that autocast casts directly (:meth:`_leaf_copy`), id(T) -> whether the forward
        #: reads one too (a frozen table's output) or, under reentrant checkpointing, only the recomputation does (the
        #: detached input: the forward's is the previous block's output, no leaf).
        self._leaves: dict[int, bool] = {}
        #: id(leaf) -> (autocast's cached bf16 copy of it, the checkpointed block it was made in).
        self._leaf_casts: dict[int, tuple[T, int | None]] = {}
        #: Storages only the forward makes, not a reentrant block's recomputation (:func:`_recompute` skips them), and
        #: storages only that recomputation makes (:func:`replay_forward` skips them): :meth:`_leaf_copy`.
        self.forward_only: set[int] = set()
        self.recompute_only: set[int] = set()
        #: Nodes outside every reentrant block that one block's nested backward runs (:meth:`run_by_one_block`).
        self.nested_outside: set[int] = set()

    # -- bookkeeping

    def fail(self, why: str) -> None:
        if self.failed is None:
            self.failed = why

    def exact_lifetimes(self) -> None:
        self.opted = True

    def scope(self) -> int:
        return self._next

    def exact_forward(self) -> None:
        self.forward_exact = True

    def exact_autocast(self) -> None:
        self.autocast_exact = True

    def transients(self, sizes: Sequence[int], deaths: Sequence[int] | None = None, ops: Sequence[str] = ()) -> None:
        base = self._next
        for i, n in enumerate(sizes):
            self._next += 1
            self.extra[self._next] = n
            self.op_of[self._next] = ops[i] if i < len(ops) else "transient"
            if deaths is not None:
                self._die(self._next, base + 1 + deaths[i])

    def named_transient(self, nbytes: int, op: str) -> int:
        self._next += 1
        self.extra[self._next] = nbytes
        self.op_of[self._next] = op
        return self._next

    def drop_transient(self, handle: int) -> None:
        self._die(handle, self._next)

    def buffer_transient(self, handle: int) -> int:
        self.buffer_made.add(handle)
        return handle

    def made_by(self, t: T, aten: str) -> T:
        self.op_of[t.storage] = aten
        return t

    def _die(self, sid: int, at: int) -> None:
        """A candidate death of storage ``sid``: after the allocation of storage ``at`` (the earliest wins)."""
        if at < self.deaths.get(sid, at + 1):
            self.deaths[sid] = at

    def release(self, *ts: T) -> None:
        for t in ts:
            self._die(t.storage, self._next)

    def held_by_outputs(self, *ts: T, returned: bool = True) -> None:
        (self.outlive if returned else self.forward_held).update(t.storage for t in ts)

    def end_scope(self, mark: int, out: T, *also: T) -> T:
        self.scopes.append((mark, self._next, frozenset([out.storage, *(t.storage for t in also)])))
        self.returned.append((mark, self._next, also))
        return out

    def new(self, shape: Sequence[int], grad: bool, itemsize: int | None = None) -> T:
        t = super().new(shape, grad, itemsize)
        self.op_of[t.storage] = self._aten
        # What the page names it by: its module, or for an operation between modules (attention's bmm, softmax)
        # the function it ran in (the last module's parent) and the operation.
        self.made_in[t.storage] = self.module or (self._last.rsplit(".", 1)[0] + ": " + self._label).lstrip(": ")
        return t

    @contextmanager
    def _autocast_call(self) -> Iterator[None]:
        """Inside one ATen call under autocast (``linear``, ``matmul``, SDPA, a convolution): the copies autocast
        makes of its arguments are C++ temporaries of the call (:meth:`lowered` reads the flag), gone as it
        returns unless its node saved them. The flag as it was is restored after."""
        casting, self._casting = self._casting, True
        try:
            yield
        finally:
            self._casting = casting

    @contextmanager
    def _in(self, module: str) -> Iterator[None]:
        self._last = module
        with super()._in(module):
            yield

    def _labelled(self, label: str, aten: str | None = None) -> None:
        self._label = label
        if aten is not None:
            self._aten = aten

    def input_padded(self) -> None:
        if self.input_ids is None:
            self.input_ids = 0  # storage ids start at 1: no storage is the input's

    def ids(self, shape: Sequence[int]) -> T:
        self._aten = "aten.gather"
        t = super().ids(shape)
        if self.input_ids is None:
            self.input_ids = t.storage  # the program's first index tensor is ``input_ids``, live from the start
        return t

    def save(self, t: T) -> None:
        if t.storage in self.frame_kept and self.checkpointing and not self.reentrant:
            return  # the non-reentrant checkpoint's frame keeps it (:meth:`frame_keeps`), no node
        if self.grad_mode:
            self.pending.append(t.storage)
            # a pack: a recomputation stopping here has made every storage up to now. A frozen weight's autocast
            # copy is one too (torch.utils.checkpoint counts every pack; measured with backward_ledger: ESM's and ESM
            # C's frozen output Linear, the layer's last pack, recomputed with its copy, 6,652 and 4,288 bytes)
            self._stop = self._next
        super().save(t)

    def _edge(self, t: T) -> int | None:
        if not t.grad:
            return None
        e = self.edge.get(id(t))
        if e is None:
            self.fail("an input whose producer is not modelled")
        return e

    def _accumulator(self, name: str) -> int:
        storage = self.storage_of.get(name, name)
        if storage not in self.accumulators:
            kept: list[int] = []

            def keep(bw: Backward, g: T) -> list[T | None]:
                node = self.nodes[self.accumulators[storage]]
                if node.copies and not is_contiguous(g):  # obeys_layout_contract fails: clone_obey_contract
                    node.grad_sids = [bw.alloc(g.shape, g.itemsize, "aten.new_empty_strided").storage]
                    return []
                if not kept:  # .grad: the incoming gradient itself, kept
                    bw.hold(g.storage)
                    kept.append(g.storage)
                # else a later graph task's (reentrant checkpointing's nested backward): ``grad += new`` in place
                return []
            self.nodes.append(Node(ACCUMULATE, "AccumulateGrad", storage, [], [], keep, storage))
            self.accumulators[storage] = len(self.nodes) - 1
        return self.accumulators[storage]

    def _node(self, name: str, nexts: list[int | None], run: Callable[[Backward, T], list[T | None]],
              out: T, saved: list[int] | None = None) -> T:
        if not self.grad_mode:
            self.fail("no-grad region")
        between = "" if self.module else (self._last.rsplit(".", 1)[0] + ": " + self._label).lstrip(": ")
        self.nodes.append(Node(len(self.nodes), name, self.module, nexts, self.pending if saved is None else saved,
                               run, block=self._block, between=between))
        self.pending = []
        self.edge[id(out)] = len(self.nodes) - 1
        self.keep.append(out)
        return out

    def _begin(self) -> None:
        if self.pending:
            self.fail("a saved storage no node holds")
            self.pending = []

    # -- views

    def view(self, t: T, shape: Sequence[int]) -> T:
        out = super().view(t, shape)
        return self._viewed(t, out)

    def reshape(self, t: T, shape: Sequence[int]) -> T:
        self._begin()
        self._labelled("reshape", "aten.clone")
        out = super().reshape(t, shape)
        return self._viewed(t, out)

    def _viewed(self, t: T, out: T) -> T:
        """``view``/``reshape`` (ViewBackward0), or a reshape's copy (CloneBackward0 + UnsafeViewBackward0): the
        gradient reshaped back to the input's sizes, a copy when its strides do not allow a view."""
        if not out.grad:
            return out
        shape = t.shape
        return self._node("ViewBackward0", [self._edge(t)], lambda bw, g: [bw.reshape(g, shape)], out, [])

    def transpose(self, t: T, a: int, b: int) -> T:
        out = super().transpose(t, a, b)
        if not out.grad:
            return out

        def run(bw: Backward, g: T) -> list[T | None]:
            shape, strides = list(g.shape), list(g.strides)
            shape[a], shape[b] = shape[b], shape[a]
            strides[a], strides[b] = strides[b], strides[a]
            return [bw.alias(g, shape, strides)]
        return self._node("TransposeBackward0", [self._edge(t)], run, out, [])

    def expand(self, t: T, shape: Sequence[int]) -> T:
        out = super().expand(t, shape)
        if not out.grad:
            return out
        if tuple(shape) != t.shape:  # ExpandBackward0: ``sum_to`` the input's sizes, a new tensor (MPNet's bias)
            size, old = t.itemsize, t.shape
            return self._node("ExpandBackward0", [self._edge(t)], lambda bw, g: [bw.alloc(old, size, "aten.sum")], out,
                              [])
        return self._node("ExpandBackward0", [self._edge(t)], lambda bw, g: [bw.alias(g, g.shape, g.strides)], out, [])

    def select(self, t: T, dim: int, index: int = 0) -> T:
        out = super().select(t, dim, index)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize
        return self._node("SelectBackward0", [self._edge(t)],
                          lambda bw, g: [bw.alloc(shape, size, "aten.select_backward")], out, [])

    def contiguous(self, t: T) -> T:
        self._labelled("contiguous", "aten.clone")
        out = super().contiguous(t)
        if out is t or not out.grad:
            return out
        return self._node("CloneBackward0", [self._edge(t)], lambda bw, g: [bw.alias(g, g.shape, g.strides)], out, [])

    # -- operations

    def _pointwise_backward(self, name: str, op: str, t: T, out: T) -> T:
        """A node whose one gradient is a new tensor of its input's shape (``grad * mask``, ``gelu_backward``...)."""
        shape, size = t.shape, t.itemsize
        return self._node(name, [self._edge(t)], lambda bw, g: [bw.alloc(shape, size, op)], out)

    def pointwise(self, t: T) -> T:
        self._begin()
        self._labelled("mul" if len(t.shape) == 4 else "contiguous", "aten.mul")
        out = super().pointwise(t)
        if not out.grad:
            return out
        if not is_contiguous(t):
            self.fail("a copy of a strided view")  # the QA head's split: another backward
        return self._pointwise_backward("MulBackward1", "aten.mul", t, out)

    def dropout(self, t: T, active: bool = True, noise_shape: Sequence[int] | None = None) -> T:
        """CPU's dropout in training (``_dropout_impl``): ``noise = empty_like(input)``, filled in place, then
        ``input * noise``; the noise is kept by ``MulBackward0`` when the input needs a gradient, else dropped as the
        function returns. In ``model.eval()`` (or p = 0) it returns its input. ``noise_shape``: a feature dropout's
        (``dropout2d``: one number per sample and channel, ``new_empty``; Reformer's axial positions)."""
        self._begin()
        self._labelled("dropout", "aten.empty_like" if noise_shape is None else "aten.new_empty")
        if not active or not self.training:
            return t
        noise = self.new(t.shape if noise_shape is None else noise_shape, False, t.itemsize)  # (no autocast here)
        self._aten = "aten.mul"
        out = self.new(t.shape, t.grad, t.itemsize)
        self.release(noise)  # Python's name goes as dropout returns (MulBackward0 keeps it when t needs a gradient)
        if not t.grad:
            return out
        self.save(noise)
        # MulBackward0 saves its input before the product is made: a recomputation stopping at this pack (a pre-LN
        # layer's last dropout) never makes the product.
        self._stop = noise.storage
        return self._pointwise_backward("MulBackward0", "aten.mul", t, out)

    def bmm(self, a: T, b: T) -> T:
        """``torch.matmul`` of two 4-D tensors: the copies its reshapes make are dropped when it returns (unless
        ``bmm`` keeps them); so are autocast's bf16 copies of float32 operands (rotated Q and K: :meth:`mul_table`),
        C++ temporaries of ``matmul`` kept only by ``BmmBackward0``."""
        mark = self.scope()
        # Under autocast matmul casts a float32 operand to bf16 (T5's probabilities, float32 after the promoting add of
        # its float32 position bias): a copy made inside matmul, gone as it returns unless bmm keeps it.
        with self._autocast_call():
            out = super().bmm(a, b)
        return self.end_scope(mark, out)

    def matmul_by(self, x: T, m: T) -> T:
        """``x.matmul(m)`` by a computed matrix (MobileBERT's MLM head): under autocast matmul casts a float32 operand
        (the concatenated [H, V] matrix) to bf16, a copy made inside matmul, gone as it returns unless mm keeps it
        (as :meth:`bmm`)."""
        mark = self.scope()
        with self._autocast_call():
            # cast first (x, then m), so that the product's node hands its bf16 gradients to the copies'
            # ToCopyBackward0 (MobileBERT's float32 [H, V] matrix: measured, its bf16 gradient then the float32 one)
            x, m = self.lowered(x), self.lowered(m)
            out = super().matmul_by(x, m)
        return self.end_scope(mark, out)

    def activation(self, name: str, t: T) -> T:
        if name not in ("gelu", "relu", "gelu_new"):
            self.fail("activation " + name)
        self._op_name = "aten.threshold_backward" if name == "relu" else None
        try:
            return super().activation(name, t)
        finally:
            self._op_name = None

    def keep_input(self, t: T) -> T:
        self._begin()
        self._labelled("gelu", "aten.gelu")
        out = super().keep_input(t)
        return self._pointwise_backward("GeluBackward0", "aten.gelu_backward", t, out) if out.grad else out

    def keep_output(self, t: T, itemsize: int | None = None) -> T:
        self._begin()
        op = self._op_name or ("aten._softmax_backward_data" if len(t.shape) == 4 else "aten.tanh_backward")
        self._labelled(op.split("_backward")[0].replace("aten._", "").replace("aten.", "").replace("threshold", "relu"),
                       {"aten._softmax_backward_data": "aten._softmax", "aten.tanh_backward": "aten.tanh",
                        "aten.threshold_backward": "aten.relu"}.get(op, op))
        out = super().keep_output(t, itemsize)
        return self._pointwise_backward("OutputBackward", op, t, out) if out.grad else out

    def add(self, a: T, b: T) -> T:
        self._begin()
        self._labelled("add", "aten.add")
        out = super().add(a, b)
        if not out.grad:
            return out
        if a.itemsize != b.itemsize and self.lower is None:
            self.fail("a promoting add")  # Ops.add makes the model's dtype (under autocast: the wider, _add_backward)
        return self._node("AddBackward0", [self._edge(a), self._edge(b)], self._add_backward(a, b), out)

    def add_(self, a: T, b: T) -> T:
        """``a += b`` in place: ``AddBackward0`` as for :meth:`add` (autograd rebases ``a``'s history on it)."""
        self._begin()
        out = super().add_(a, b)
        if not out.grad:
            return out
        # Under autocast a bf16 destination may take a float32 operand of its shape (MPNet's position bias on the
        # scores): the sum stays bf16 in place, and validate_outputs casts the operand's gradient back (_add_backward).
        widening = self.lower is not None and a.itemsize < b.itemsize and tuple(a.shape) == tuple(b.shape)
        if (a.itemsize != b.itemsize and not widening) or len(a.shape) != len(b.shape) or any(
                m != n and n != 1 for m, n in zip(a.shape, b.shape)):
            self.fail("a promoting in-place add, or one broadcasting its destination")  # ``b`` may broadcast
        return self._node("AddBackward0", [self._edge(a), self._edge(b)], self._add_backward(a, b), out)

    def _add_backward(self, a: T, b: T) -> Callable[[Backward, T], list[T | None]]:
        """``AddBackward0``: the gradient to each input, summed to its shape (``sum_to``) or cast to its dtype by
        ``validate_outputs`` where the add broadcast or promoted it (each a new tensor)."""

        def run(bw: Backward, g: T) -> list[T | None]:
            grads: list[T | None] = []
            for t in (a, b):
                if not t.grad:
                    grads.append(None)
                elif t.itemsize != g.itemsize:  # a promoted add: validate_outputs casts the gradient back
                    if t.shape != g.shape:
                        self.fail("a promoting add with a reduction")
                    grads.append(bw.alloc(t.shape, t.itemsize, "aten._to_copy"))
                elif t.shape == g.shape:
                    grads.append(bw.alias(g, g.shape, g.strides))
                else:
                    grads.append(bw.alloc(t.shape, t.itemsize, "aten.sum"))  # validate_outputs' sum_to
            return grads
        return run

    def product(self, a: T, b: T, flops: int, shape: Sequence[int]) -> T:
        self._begin()
        op = self._product_op  # "aten.mm" for a product by a matrix (:meth:`matmul_matrix`)
        self._labelled("matmul", op)
        out = super().product(a, b, flops, shape)
        if len(shape) != 3:
            self.fail("mm of two activations")
        if not out.grad:
            return out

        def run(bw: Backward, g: T) -> list[T | None]:
            gb = bw.alloc(b.shape, b.itemsize, op) if b.grad else None  # measured: mat2's first
            ga = bw.alloc(a.shape, a.itemsize, op) if a.grad else None
            return [ga, gb]
        return self._node("BmmBackward0", [self._edge(a), self._edge(b)], run, out)

    def mm(self, a: T, b_grad: bool, m: int, k: int, n: int, out_shape: Sequence[int], bias_grad: bool = False,
           itemsize: int | None = None, w: T | None = None) -> T:
        """``addmm`` (``nn.Linear``): the input's gradient ``grad.mm(W)``, the weight's in ``W.t()``'s layout
        (kept as ``.grad`` through ``TBackward0``'s view), the bias's ``sum_to`` [out], in that order. ``w``: under
        autocast the weight's bf16 copy (:meth:`weight_copy`; the bias's, :meth:`_linear`'s), and the weight's and the
        bias's gradients, bf16, go to their copies' ``ToCopyBackward0``, which casts them back to float32."""
        self._begin()
        module = self.module
        self._aten = "aten.addmm" if self._adapter is None and module + ".bias" in self.shapes else "aten.mm"
        bias_copy, self._bias_copy = self._bias_copy, None
        mark = self._next
        bare = self.lower is not None and w is None
        if bare:
            w, itemsize = self._bare_copy(a, b_grad, k, n), self.lower
        # A frozen weight read for the input's gradient is packed, a parameter (no storage of the step): within a
        # non-reentrant checkpointed block that pack is where a recomputation may stop (packed before the kernel
        # runs) and its unpack is the block's recomputation when this node runs first in it (measured with
        # backward_ledger: ModernBERT's frozen mlp.Wo, the first node of its layer, recomputed the layer there).
        packs_weight = self.grad_mode and a.grad and not b_grad and w is None and self._block is not None
        if packs_weight:
            self._stop = self._next
        out = super().mm(a, b_grad, m, k, n, out_shape, bias_grad, itemsize, w)
        if packs_weight and out.grad:
            self.pending.append(PARAMETER_PACK)
        if bare:  # the table's copy: a temporary of ``matmul`` unless its node saved it
            for s in range(mark + 1, self._next):
                self._die(s, self._next)
        if not out.grad:
            return out
        size = out.itemsize
        flat = (m, n)
        adapter = self._adapter
        if adapter is not None:  # a LoRA factor: lora_A or lora_B, no bias
            module = module + "." + adapter

        def run(bw: Backward, g: T) -> list[T | None]:
            ga = bw.alloc((m, k), a.itemsize, "aten.mm") if a.grad else None
            gw = bw.alloc((n, k), size, "aten.mm") if b_grad else None
            bw.applied()  # the bias's gradient is the incoming one, summed to [out] by validate_outputs
            gb = bw.alloc((n,), size, "aten.sum") if bias_grad else None
            return [gb, ga, gw]
        # Handed on in addmm's order (bias, input, then W.t()'s TBackward0, which passes the weight's on): with a
        # shared weight (ALBERT) the bias's sum is done and freed before the weight's is made.
        nexts = [self._accumulator(module + ".bias") if bias_grad else None, self._edge(a),
                 self._accumulator(self._weight or module + ".weight") if b_grad else None]
        if w is not None:  # autocast: to the copies' ToCopyBackward0
            nexts = [self._edge(bias_copy) if bias_grad and bias_copy is not None else None, self._edge(a),
                     self._edge(w) if b_grad else None]
        if out.shape == flat:
            return self._node("AddmmBackward0", nexts, run, out)
        product = self._node("AddmmBackward0", nexts, run, T(flat, contiguous_strides(flat), out.storage, True, size))
        return self._node("ViewBackward0", [self.edge[id(product)]], lambda bw, g: [bw.reshape(g, flat)], out, [])

    def _bare_copy(self, a: T, b_grad: bool, k: int, n: int) -> T:
        """``torch.matmul(x, weight.t())`` under autocast (DeBERTa-v2's non-legacy MLM head by the word table,
        measured): ``weight.t()`` is a view, never cached, so ``_to_copy`` makes a fresh bf16 [k, n] copy each
        time (the transposed layout kept), a temporary ``mm`` saves for the input's gradient; its
        ``ToCopyBackward0`` casts the weight's bf16 gradient back to float32 [k, n], which ``TBackward0`` hands
        to the table's ``AccumulateGrad`` as a view (already the table's layout). Only a bf16 input is measured
        (the head's LayerNorm output under autocast); a float32 one's copy order is not."""
        if a.itemsize == 4:
            self.fail("a float32 input to a bare matmul by a parameter under autocast")
        self._labelled("to", "aten._to_copy")
        copy = self.new((k, n), b_grad, self.lower)
        if copy.grad:
            size = self.itemsize
            copy = self._node("ToCopyBackward0", [self._accumulator(self._weight or self.module + ".weight")],
                              lambda bw, g: [bw.alloc((k, n), size, "aten._to_copy")], copy, [])
        self._aten = "aten.mm"
        return copy

    def embedding(self, module: str, ids: T, first: bool = False) -> T:
        self._begin()
        self._aten = "aten.embedding"
        out = super().embedding(module, ids, first)
        if not out.grad:
            return out
        if not self.trains.get(module + ".weight"):
            return self._leaf(out)
        shape, size = self.shapes[module + ".weight"], out.itemsize
        return self._node("EmbeddingBackward0", [self._accumulator(module + ".weight")],
                          lambda bw, g: [bw.alloc(shape, size, "aten.embedding_dense_backward")], out)

    def _leaf(self, out: T) -> T:
        """A frozen input embedding's output under checkpointing (either kind): ``enable_input_require_grads``' hook
        makes it a leaf needing a gradient (``requires_grad_(True)``). Its ``AccumulateGrad`` holds it, and the ``.grad``
        it gets (the incoming gradient itself), until the graph goes after the backward. Under autocast an operation
        reading it directly (NeoMME's embedding projection) reads autocast's cached copy (:meth:`_leaf_copy`)."""
        self._leaves[id(out)] = True
        kept: list[int] = []

        def keep(bw: Backward, g: T) -> list[T | None]:
            if not kept:
                bw.hold(g.storage)
                kept.append(g.storage)
            return []
        self.nodes.append(Node(ACCUMULATE, "AccumulateGrad", self.module, [], [], keep))
        self.edge[id(out)] = len(self.nodes) - 1
        self.keep.append(out)
        self.graph_held.add(out.storage)
        return out

    def layer_norm(self, module: str, x: T) -> T:
        self._begin()
        self._aten = "aten.native_layer_norm"
        out = super().layer_norm(module, x)
        if not out.grad:
            # ``native_layer_norm`` returns the mean and 1/std even when nothing keeps them: made with the output,
            # dropped at once.
            rows = x.shape[:-1] + (1,)
            self.release(self.new(rows, False), self.new(rows, False))
            return out
        # The mean and 1/std are saved (the last two storages made); Python drops its own names of them at once.
        self.deaths.setdefault(self._next - 1, self._next)
        self.deaths.setdefault(self._next, self._next)
        weight, bias = bool(self.trains.get(module + ".weight")), bool(self.trains.get(module + ".bias"))
        width = x.shape[-1]
        # A bf16 input under autocast (an MLM head's LayerNorm): the float32 weight's gradients stay float32.
        param_size = out.itemsize if self.lower is None else self.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            op = "aten.native_layer_norm_backward"
            gx = bw.alloc(x.shape, x.itemsize, op) if x.grad else None
            gw = bw.alloc((width,), param_size, op) if weight else None
            gb = bw.alloc((width,), param_size, op) if bias else None
            return [gx, gw, gb]
        nexts = [self._edge(x), self._accumulator(module + ".weight") if weight else None,
                 self._accumulator(module + ".bias") if bias else None]
        return self._node("NativeLayerNormBackward0", nexts, run, out)

    def gelu_tanh(self, t: T) -> T:
        """``NewGELUActivation``: ``0.5 * x * (1.0 + tanh(c * (x + 0.044715 * pow(x, 3.0))))`` as Python runs it,
        one node per operation: t1 = 0.5·x, t2 = x³ (PowBackward0 keeps x), t3 = 0.044715·t2, t4 = x + t3,
        t5 = c·t4, t6 = tanh (keeps its output), t7 = 1 + t6, out = t1·t7 (keeps both). t2 to t5 are
        temporaries of the expression, each gone once the next is made. PowBackward0 computes
        ``grad * (3 * x.pow(2))``: three tensors at once, the first two freed at the end of the expression."""
        if not t.grad:
            return self._gelu_tanh_no_grad(t)
        self._begin()
        self._labelled("gelu_new")
        shape, size = t.shape, t.itemsize

        def alloc(op: str) -> Callable[[Backward, T], list[T | None]]:
            return lambda bw, g: [bw.alloc(shape, size, op)]

        def pow_backward(bw: Backward, g: T) -> list[T | None]:
            square = bw.alloc(shape, size, "aten.pow")
            scaled = bw.alloc(shape, size, "aten.mul")
            out = bw.alloc(shape, size, "aten.mul")
            bw.drop(square.storage)
            bw.drop(scaled.storage)
            return [out]

        def passed(k: int) -> Callable[[Backward, T], list[T | None]]:
            return lambda bw, g: [bw.alias(g, g.shape, g.strides) for _ in range(k)]

        def product(bw: Backward, g: T) -> list[T | None]:
            return [bw.alloc(shape, size, "aten.mul"), bw.alloc(shape, size, "aten.mul")]

        t1 = self._node("MulBackward1", [self._edge(t)], alloc("aten.mul"), self.new(shape, True, size), [])
        self.save(t)
        t2 = self._node("PowBackward0", [self._edge(t)], pow_backward, self.new(shape, True, size))
        t3 = self._node("MulBackward1", [self._edge(t2)], alloc("aten.mul"), self.new(shape, True, size), [])
        t4 = self._node("AddBackward0", [self._edge(t), self._edge(t3)], passed(2), self.new(shape, True, size), [])
        t5 = self._node("MulBackward1", [self._edge(t4)], alloc("aten.mul"), self.new(shape, True, size), [])
        t6 = self.new(shape, True, size)
        self.save(t6)
        t6 = self._node("TanhBackward0", [self._edge(t5)], alloc("aten.tanh_backward"), t6)
        t7 = self._node("AddBackward1", [self._edge(t6)], passed(1), self.new(shape, True, size), [])
        self.save(t1)
        self.save(t7)
        out = self._node("MulBackward0", [self._edge(t1), self._edge(t7)], product, self.new(shape, True, size))
        for a, b in ((t2, t3), (t3, t4), (t4, t5), (t5, t6)):  # each temporary gone once the next is made
            self.scopes.append((a.storage - 1, b.storage, frozenset([b.storage])))
        self._die(t6.storage, t7.storage)  # Python's names (autograd keeps these three)
        self._die(t1.storage, out.storage)
        self._die(t7.storage, out.storage)
        return out

    def _gelu_tanh_no_grad(self, t: T) -> T:
        """The same expression where nothing needs a gradient: eight tensors, each temporary dropped once the next
        operation has used it (``0.5 * x`` and ``1 + tanh`` at the last product)."""
        self._begin()
        self._labelled("gelu_new")

        def op(aten: str) -> T:
            self._aten = aten
            return self.new(t.shape, False, t.itemsize)
        t1 = op("aten.mul")
        prev = op("aten.pow")
        for aten in ("aten.mul", "aten.add", "aten.mul", "aten.tanh", "aten.add"):
            nxt = op(aten)
            self.release(prev)
            prev = nxt
        out = op("aten.mul")
        self.release(t1, prev)
        return out

    def split_columns(self, t: T) -> list[T]:
        """``split(1, -1)``: one ``SplitBackward0`` for all parts (its backward ``cat``s their gradients into a
        new tensor of ``t``'s shape), then per part ``SqueezeBackward1`` and ``CloneBackward0`` (views of the
        gradient)."""
        self._begin()
        self._aten = "aten.clone"
        # ``.contiguous()`` copies a part unless it already is contiguous (B = L = 1: both dimensions one long), when it
        # returns the squeezed view itself (measured: DistilBERT's QA at B = L = 1, 8 bytes less; found by the edge sweep)
        parts = [view if is_contiguous(view := Ops.select(self, t, len(t.shape) - 1)) else Ops.pointwise(self, view)
                 for _ in range(t.shape[-1])]
        if not t.grad:
            return parts
        shape, size = t.shape, t.itemsize
        handle = T(t.shape, t.strides, t.storage, True, t.itemsize)
        self._node("SplitBackward0", [self._edge(t)], lambda bw, g: [bw.alloc(shape, size, "aten.cat")], handle, [])
        node = self.edge.pop(id(handle))
        self.nodes[node].slots = True
        for part in parts:
            self.edge[id(part)] = node  # the squeeze's and the copy's backward are views: straight to the split
            self.keep.append(part)
        return parts

    def linear(self, module: str, x: T, strided: bool = False) -> T:
        """peft's LoRA ``Linear`` as its forward runs: ``result = base_layer(x)``; ``x`` cast to the adapters'
        float32 (a bf16 model); ``result = result + lora_B(lora_A(x)) * scaling`` (promoted to float32 in a bf16
        model); ``result.to(dtype)``. Its names die when that function returns. ``strided``: a strided 3-D float32
        ``x`` (Longformer's transposed hidden states), whose base layer runs as :meth:`linear_strided`'s and whose
        adapters fold it (a copy, kept by ``lora_A``'s node): measured, float32 and no autocast only; the same path
        :meth:`linear_strided` takes for a LoRA module (Funnel's ``post_proj``)."""
        r = self.lora.get(module)
        if r is None:
            return super().linear(module, x)
        mark = self.scope()
        with self._in(module):
            info = self.linear_info(module)
            strided = strided or self._strided_lora  # asked by the caller, or by linear_strided
            if strided:  # base_layer(x) on a strided input (:meth:`linear_strided`), the adapters aside
                self._strided_lora, self._lora_base = False, True
                try:
                    base = self.linear_strided(module, x)
                finally:
                    self._lora_base = False
            else:
                base = self._linear(x, info.in_features, info.out_features, info.weight_trains, info.bias_trains,
                                    weight=self.storage_name(module + ".weight") if self.lower else None)
            if x.itemsize == ADAPTER_BYTES:
                wide = x
            elif strided and _dense(x):  # x.to(float32) of a dense permuted input keeps its strides (measured)
                wide = self._cast(x, ADAPTER_BYTES, x.strides)
            else:
                wide = self._cast(x, ADAPTER_BYTES)
            try:
                self._adapter = "lora_A"
                made = self._next
                a = self._linear(wide, info.in_features, r, True, False, ADAPTER_BYTES, weight=module + ".lora_A")
                for sid in range(made + 1, self._next):  # matmul's fold of a strided input: a copy mm keeps
                    if sid not in self.cached and sid != a.storage:
                        self._die(sid, self._next)
                self._adapter = "lora_B"
                b = self._linear(a, r, info.out_features, True, False, ADAPTER_BYTES, weight=module + ".lora_B")
                self.release(a)  # lora_B(lora_A(x)): an argument, kept only by lora_B's backward
            finally:
                self._adapter = None
            scaled = self.pointwise(b)
            self.release(b)  # lora_B(lora_A(x)) * scaling: the product's operands are temporaries
            self._begin()
            self._labelled("add", "aten.add")
            # promoted to float32 in bf16; no node under no_grad (Reformer's reversible layers' first run)
            out = self.new(base.shape, self.grad_mode, max(base.itemsize, scaled.itemsize))
            if out.grad:
                out = self._node("AddBackward0", [self._edge(base), self._edge(scaled)],
                                 self._add_backward(base, scaled), out)
            self.release(base, scaled)  # result = result + ...: the old result and the summand are dropped
            if out.itemsize != base.itemsize:
                out = self.rebind(out, self._cast(out, base.itemsize))  # result = result.to(torch_result_dtype)
        return self.end_scope(mark, out)

    def _cast(self, t: T, itemsize: int, strides: tuple[int, ...] | None = None) -> T:
        """``t.to(dtype)``: a new tensor (laid out as ``strides`` where given); ``ToCopyBackward0`` casts the
        gradient back (a new tensor of ``t``'s dtype)."""
        self._begin()
        self._labelled("to", "aten._to_copy")
        out = self.new(t.shape, t.grad, itemsize)
        if strides is not None:
            out = T(out.shape, strides, out.storage, out.grad, out.itemsize)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize
        return self._node("ToCopyBackward0", [self._edge(t)], lambda bw, g: [bw.alloc(shape, size, "aten._to_copy")],
                          out, [])

    # -- autocast (torch.autocast("cpu", dtype=torch.bfloat16) around the forward; reference/PEAK.md section 5)

    def lowered(self, t: T) -> T:
        """A float32 activation cast to bf16 for a Linear (:meth:`.ops.Ops.lowered`): ``ToCopyBackward0`` casts the
        gradient back (a new float32 tensor). The copy is a temporary of the Linear (:meth:`_linear` releases it):
        kept only if the product saves it. A copy made anywhere else is not modelled."""
        if self.lower is None or t.itemsize != 4:
            return t
        if not self._casting:
            self.fail("an autocast copy outside a Linear")
        self._begin()
        if id(t) in self._leaves:
            return self._leaf_copy(t)
        self._labelled("to", "aten._to_copy")
        out = super().lowered(t)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize
        return self._node("ToCopyBackward0", [self._edge(t)], lambda bw, g: [bw.alloc(shape, size, "aten._to_copy")],
                          out, [])

    def _leaf_copy(self, t: T) -> T:
        """A float32 leaf needing a gradient read by an operation under autocast (a frozen table's output under
        checkpointing, :meth:`_leaf`; a reentrant block's detached input in its recomputation): ``cached_cast`` caches
        its bf16 copy as a trained parameter's (``arg.is_leaf() && arg.requires_grad()``, aten/src/ATen/autocast_mode.cpp),
        so every operation reading it reads the one copy (Q, K and V: their input gradients summed into its
        ``ToCopyBackward0``, which casts the sum back once), held by the cache until the autocast region exits (the
        forward's end; a recomputation's end) or by the nodes saving it. A reentrant block's forward reads the previous
        block's output, no leaf: a fresh copy per operation there, each a temporary of its call
        (:attr:`forward_only`), where the recomputation makes the cached one (:attr:`recompute_only`). A cached copy
        read in another checkpointed block than the one that made it (each recomputation has a cache of its own) is
        not modelled."""
        if not self._leaves[id(t)]:
            self._labelled("to", "aten._to_copy")
            self.forward_only.add(Sim.lowered(self, T(t.shape, t.strides, t.storage, False, t.itemsize)).storage)
        got = self._leaf_casts.get(id(t))
        if got is not None:
            if got[1] != self._block:
                self.fail("autocast's cached copy of a leaf read in another checkpointed block")
            return got[0]
        self._labelled("to", "aten._to_copy")
        out = super().lowered(t)
        self.cached.add(out.storage)
        if not self._leaves[id(t)]:
            self.recompute_only.add(out.storage)
        if out.grad:
            shape, size = t.shape, t.itemsize
            out = self._node("ToCopyBackward0", [self._edge(t)],
                             lambda bw, g: [bw.alloc(shape, size, "aten._to_copy")], out, [])
        self._leaf_casts[id(t)] = (out, self._block)
        return out

    def weight_copy(self, key: str, shape: Sequence[int], trains: bool) -> T | None:
        """A parameter's bf16 copy (:meth:`.ops.Ops.weight_copy`; a bias's too, from :meth:`mm`): a trained one's
        is cached (:attr:`cached`: the cache holds it to the forward's end, a node that saves it to its backward)
        and its ``ToCopyBackward0`` casts the gradient back to the float32 parameter's ``AccumulateGrad``; a
        frozen one's is made afresh at each use, a temporary of the Linear."""
        if self.lower is None:
            return None
        if trains and key in self.cast_cache:
            return self.cast_cache[key]
        self._labelled("to", "aten._to_copy")
        t = super().weight_copy(key, shape, trains)
        assert t is not None
        if not trains:
            return t
        self.cached.add(t.storage)
        if t.grad:
            param = key + ".weight" if key.endswith((".lora_A", ".lora_B")) else key
            grad_shape, size = tuple(shape), self.itemsize if not key.endswith((".lora_A", ".lora_B")) else ADAPTER_BYTES
            t = self._node("ToCopyBackward0", [self._accumulator(param)],
                           lambda bw, g: [bw.alloc(grad_shape, size, "aten._to_copy")], t, [])
            self.cast_cache[key] = t
        return t

    def _linear(self, x: T, in_f: int, out_f: int, w_grad: bool, b_grad: bool, itemsize: int | None = None,
                weight: str | None = None) -> T:
        """:meth:`.ops.Ops._linear`; under autocast the copies it makes (the input's, a frozen parameter's) are
        C++ temporaries of ``linear``: gone as it returns unless its node saved them; the cached ones stay."""
        if self.lower is None:
            return super()._linear(x, in_f, out_f, w_grad, b_grad, itemsize, weight)
        mark = self._next
        try:
            with self._autocast_call():
                # autocast's linear casts its arguments last first (measured: bias, weight, input; a C++ argument
                # pack evaluated right to left), so the copies' ToCopyBackward0 nodes run input, weight, bias in the
                # backward.
                if self._adapter is None and self.module + ".bias" in self.shapes:
                    self._bias_copy = self.weight_copy(self.storage_name(self.module + ".bias"), (out_f,), b_grad)
                w = self.weight_copy(weight or self.module + ".weight", (out_f, in_f), w_grad)
                x = self.lowered(x)
                tokens = x.numel // in_f if in_f else 0
                flat = x if len(x.shape) == 2 else self.reshape(x, (-1, in_f))
                out = self.mm(flat, w_grad, tokens, in_f, out_f, (*x.shape[:-1], out_f), b_grad, self.lower, w)
        finally:
            self._bias_copy = None
        for s in range(mark + 1, self._next):
            if s not in self.cached:
                self._die(s, self._next)
        return out

    # -- what the lifetime simulator does not model (the step keeps its other answers)

    def sdpa(self, q: T, k: T, v: T, mask: T | None = None) -> T:
        """``ScaledDotProductFlashAttentionForCpuBackward0`` (sdpa2, issue 32): the node saves q, k, v, the output,
        the float32 logsumexp (and a mask); its backward, ``_scaled_dot_product_flash_attention_for_cpu_backward``,
        returns the three gradients at once, each allocated [B, L, A, d] and returned as [B, A, L, d] (measured,
        whatever the inputs' layout), even for an input that needs none (dropped at once). Where nothing needs a
        gradient (inference) the kernel still returns its logsumexp, dropped as ``scaled_dot_product_attention``
        returns. Heads of different sizes take the math path (:meth:`sdpa_math`), no kernel's node."""
        if not q.shape[-1] == k.shape[-1] == v.shape[-1]:  # check_head_dim_size_cpp (Ops.sdpa)
            return self.sdpa_math(q, k, v, mask)
        if self.lower is not None and 4 in (q.itemsize, k.itemsize, v.itemsize) and \
                q.shape[-1] == k.shape[-1] == v.shape[-1]:
            # Under autocast a float32 q, k or v (rotated by float32 tables: :meth:`mul_table`) is cast to bf16
            # first (measured: k before q, a C++ argument pack), the copies temporaries of the call unless saved.
            mark = self.scope()
            with self._autocast_call():
                v, k, q = self.lowered(v), self.lowered(k), self.lowered(q)
            return self.end_scope(mark, self.sdpa(q, k, v, mask))
        self._begin()
        self._labelled("scaled_dot_product_attention", "aten._scaled_dot_product_flash_attention_for_cpu")
        # Under autocast a float32 mask (T5's position bias) is cast to bf16 first: a copy inside the operation, gone as
        # it returns unless the kernel's node keeps it.
        mark = self.scope()
        with self._autocast_call():
            out = super().sdpa(q, k, v, mask)
        self._aten = "aten._scaled_dot_product_flash_attention_for_cpu"
        for sid in range(out.storage, self._next + 1):  # the kernel's output and logsumexp (after the mask's copy)
            self.op_of[sid] = self._aten
        if not out.grad:
            self.release(self.new((q.shape[0], q.shape[1], q.shape[2]), False, 4))  # the logsumexp, float32
            return self.end_scope(mark, out)
        self.end_scope(mark, out)

        def grad_like(bw: Backward, t: T) -> T:
            b, h, n, d = t.shape
            return bw.alloc((b, h, n, d), t.itemsize, "aten._scaled_dot_product_flash_attention_for_cpu_backward",
                            (n * h * d, d, h * d, 1))

        def run(bw: Backward, g: T) -> list[T | None]:
            return [grad_like(bw, q), grad_like(bw, k), grad_like(bw, v)]
        return self._node("ScaledDotProductFlashAttentionForCpuBackward0", [self._edge(q), self._edge(k), self._edge(v)],
                          run, out)

    def sdpa_math(self, q: T, k: T, v: T, mask: T | None = None) -> T:
        """SDPA's math path (:meth:`~.ops.Ops.sdpa_math`): its autograd nodes are not recorded here, so the peak is
        not claimed exact (the step's four figures are); but for one-wide heads (Q and K two wide, V one: measured,
        GTE), without a mask or with a window's that needs no gradient (ModernBERT, UltraBERT), it is replayed:
        :meth:`_sdpa_math_unmasked`."""
        # a mask only with one-wide heads (V narrower than Q, K) and as measured: no gradient, not cast by autocast
        masked = mask is not None and (mask.grad or q.shape[-1] == v.shape[-1] or (
            self.lower is not None and mask.itemsize == 4))
        if masked or q.shape[-1] != k.shape[-1]:
            self.fail("SDPA's math path")
            return super().sdpa_math(q, k, v, mask)
        return self._sdpa_math_unmasked(q, k, v, mask)

    def _sdpa_math_unmasked(self, q: T, k: T, v: T, mask: T | None = None) -> T:
        """``_scaled_dot_product_attention_math`` without a mask needing a gradient (``mask``: a window's, in the
        query's dtype after autocast's copies, added to the scores), as :meth:`~.ops.Ops.sdpa_math` describes it (the
        nodes as :meth:`sdpa_math_replayed` records them, measured with the backward ledger): under autocast (no
        graph) a float32 q, k or v cast to bf16 first (v, k, q: the flash path's order), temporaries of the call; a
        bf16 q, k, v copied to float32 (locals of the function); ``q * √scale`` (named to the end), ``kᵀ * √scale`` (a
        temporary of the product); ``matmul`` (its reshapes' copies); ``_safe_softmax``; for bf16 its second output
        ``attn.to(bf16)`` (made before the product, gone with the tuple); ``matmul`` by V; the product cast back to
        bf16 (the float32 one a temporary)."""
        self.sdpa_math_ran = True
        mark = self.scope()
        if self.lower is not None:
            with self._autocast_call():
                v, k, q = self.lowered(v), self.lowered(k), self.lowered(q)
        lower, self.lower = self.lower, None  # autocast is off inside the operation
        try:
            out = self._sdpa_math_body(q, k, v, mask)
        finally:
            self.lower = lower
        return self.end_scope(mark, out)

    # -- XLM's and FlauBERT's operations (measured with the backward ledger: tests/crosscheck/peak_measure.py)

    def divided(self, t: T) -> T:
        """``t / number`` (XLM's ``q / math.sqrt(head_dim)``): a new tensor laid out as ``t`` (TensorIterator keeps
        a transposed view's strides); ``DivBackward0`` keeps nothing and allocates its gradient in the incoming
        one's layout."""
        self._begin()
        self._labelled("div", "aten.div")
        made = self.new(t.shape, t.grad, t.itemsize)
        out = T(t.shape, t.strides, made.storage, made.grad, t.itemsize)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize
        return self._node("DivBackward0", [self._edge(t)], lambda bw, g: [bw.alloc(shape, size, "aten.div", g.strides)],
                          out, [])

    def cast(self, t: T, itemsize: int) -> T:
        """``t.to(dtype)``: :meth:`_cast` (``ToCopyBackward0`` allocates the gradient in ``t``'s dtype)."""
        return self._cast(t, itemsize)

    def scale_(self, t: T, factor: T) -> T:
        """``t *= factor`` in place, ``factor`` needing no gradient (XLM's padding mask, [B, L, 1]):
        ``MulBackward0`` keeps the factor and allocates ``grad * factor`` of ``t``'s shape."""
        self._begin()
        self._labelled("mul_", "aten.mul_")
        out = T(t.shape, t.strides, t.storage, t.grad and self.grad_mode, t.itemsize)
        if not out.grad:
            return out
        self.save(factor)
        shape, size = t.shape, t.itemsize
        return self._node("MulBackward0", [self._edge(t)], lambda bw, g: [bw.alloc(shape, size, "aten.mul")], out)

    def layer(self, fn: Callable[[Sim, T], T], x: T, also: Sequence[T] = ()) -> T:
        """Non-reentrant checkpointing (transformers 5.23's default): the block runs once with a graph whose saved
        tensors are packed into the checkpoint's holders, not kept (each storage dies when Python drops it), its
        input kept by the checkpoint's frame; the backward recomputes it (:func:`_recompute`) at its first unpack.
        Reentrant checkpointing: :meth:`reentrant_layer`."""
        if not self.checkpointing:
            return super().layer(fn, x)
        if self._block is not None:
            self.fail("a checkpointed block inside another")
            return super().layer(fn, x)
        if self.reentrant:
            return self.reentrant_layer(fn, x, also)
        self._block, first = len(self.blocks_run), self._next
        self._stop = first
        try:
            out = fn(self, x)
        finally:
            self._block = None
        self.blocks_run.append(Block(x.storage, first, self._next, self._stop, tuple(self._block_args) + tuple(sorted(self.arguments)),
                                     tuple(t.storage for t in also) + self.frame_kept))
        return out

    def reentrant_layer(self, fn: Callable[[Sim, T], T], x: T, also: Sequence[T] = ()) -> T:
        """Reentrant checkpointing (``use_reentrant=True``, torch 2.13's ``CheckpointFunction``): the forward runs the
        block under ``no_grad``, its ``CheckpointFunctionBackward`` saving only the input; that node's backward runs
        the block's forward again with a graph (:func:`_reentrant_backward`), then ``torch.autograd.backward`` through
        it from the output with the incoming gradient, and returns the detached input's ``.grad``.

        The block is recorded once, with its graph: its nodes (marked with the block) are what the recomputation
        makes, and what they save is no holder in the forward (under ``no_grad`` nothing is saved: each storage dies
        where Python drops it, as a non-reentrant block's packed ones do). The input is a fresh leaf to the block
        (``detach_variable``), whose ``AccumulateGrad`` keeps the gradient the nested backward returns. Not modelled
        (no figure): an input needing no gradient (the block's parameters then get none), other tensor arguments, a
        block whose graph reaches a node outside it other than a parameter's."""
        if not x.grad:
            self.fail("reentrant checkpointing of an input needing no gradient")
        if also or self.frame_kept:
            self.fail("reentrant checkpointing with tensor arguments")
        args, self.layer_args = self.layer_args, []
        got: list[list[T]] = [[] for _ in range(1 + len(args))]  # per detached input needing a gradient: its .grad

        def keeper(mine: list[T]) -> Callable[[Backward, T], list[T | None]]:
            def keep(bw: Backward, g: T) -> list[T | None]:
                bw.hold(g.storage)  # the detached input's .grad: the incoming gradient itself
                mine.append(g)
                return []
            return keep
        k, first, leaf = len(self.blocks_run), self._next, len(self.nodes)
        self.nodes.append(Node(ACCUMULATE, "AccumulateGrad", self.module, [], [], keeper(got[0])))
        detached = T(x.shape, x.strides, x.storage, True, x.itemsize)
        self.edge[id(detached)] = leaf
        self.keep.append(detached)
        # the other positional arguments needing a gradient: detach_variable's leaves too, read by the block's
        # function under the names it has for them (their edges point at the leaves while it runs)
        outer = {id(a): self.edge.get(id(a)) for a in args}
        for a, mine in zip(args, got[1:]):
            if a.grad:
                self.nodes.append(Node(ACCUMULATE, "AccumulateGrad", self.module, [], [], keeper(mine)))
                self.edge[id(a)] = len(self.nodes) - 1
        # a leaf needing a gradient in the recomputation (and in the forward too where the input is a frozen table's
        # output itself): autocast caches its copy there (:meth:`_leaf_copy`)
        if id(x) in self._leaf_casts:
            self.fail("autocast's cached copy of a leaf read in another checkpointed block")
        self._leaves[id(detached)] = id(x) in self._leaves
        self._block = k
        try:
            out = fn(self, detached)
            # The block's other outputs: what its outermost function (a scope from its first storage to its last)
            # returns; one of them may be an argument returned as it came (T5's position_bias: its leaf's edge).
            extras = next((also for mark, end, also in reversed(self.returned) if mark == first and end == self._next),
                          ())
            extra_edges = tuple(self.edge.get(id(t)) if t.grad else None for t in extras)
        finally:
            self._block = None
            for a in args:
                if outer[id(a)] is None:
                    self.edge.pop(id(a), None)
                else:
                    self.edge[id(a)] = outer[id(a)]  # type: ignore[assignment]
        last = len(self.nodes)
        inside = set(range(leaf, last)) | set(self.accumulators.values())
        inside |= self.nested_outside
        if any(j is not None and j not in inside for node in self.nodes[leaf + 1:last] for j in node.nexts):
            self.fail("reentrant checkpointing: a block's graph reaching outside it")
        if any(not (first < t.storage <= self._next) and all(t is not a for a in args) for t in (out, *extras)) \
                or not out.grad or any(t.grad and j is None for t, j in zip(extras, extra_edges)):
            self.fail("reentrant checkpointing: a block's output not made in it")
        root = self.edge.get(id(out), 0)
        self.blocks_run.append(Block(x.storage, first, self._next, self._next, reentrant=True, output=out.storage,
                                     extras=tuple(extras), root=root, leaf=leaf, nodes=(leaf + 1, last),
                                     extra_edges=extra_edges))
        for t in (x, *args, *self.positional):  # ctx.save_for_backward(*args): the input, the others, until the node has run
            self.save(t)
        wrapped = T(out.shape, out.strides, out.storage, True, out.itemsize)
        return self._node("CheckpointFunctionBackward", [self._edge(x), *(self._edge(a) for a in args)],
                          lambda bw, g: _reentrant_backward(self, k, bw, g, got), wrapped)

    def run_by_one_block(self, t: T) -> None:
        """``t``'s node (computed before the layers) is reached by one reentrant layer only, through a keyword argument
        (``partial``'s: not detached), and by nothing else the loss reaches: that layer's nested backward runs it
        (and what it leads to) as part of its own graph task, the outer backward never does (DeBERTa-v2's relative
        LayerNorm with one layer; with more, the second layer's backward finds it freed and PyTorch raises)."""
        j = self.edge.get(id(t))
        if j is not None:
            self.nested_outside.add(j)

    def positional_arguments(self, *ts: T, counted: bool = True) -> None:
        """Under reentrant checkpointing, the next layer's positional tensor arguments besides its input
        (:meth:`reentrant_layer` saves them with its node; one needing a gradient is a leaf of the recomputation
        whose ``.grad`` the node returns to the argument's producer); otherwise as :meth:`layer_argument`."""
        if self.checkpointing and self.reentrant:
            self.layer_args = list(ts)
        else:
            for t in ts if counted else ():
                self.layer_argument(t)

    def checkpoint_output(self, t: T, grad: bool) -> T:
        """Another output of the reentrant layer just run (``t``: what its function returned), as
        ``CheckpointFunction`` wraps it: the same storage, its gradient sent to the layer's
        ``CheckpointFunctionBackward``, which then takes one gradient per output (:attr:`Node.slots`, in the order
        they arrive: a later layer's node returns its input's before its other arguments')."""
        out = T(t.shape, t.strides, t.storage, grad, t.itemsize)
        if not (self.checkpointing and self.reentrant and self.blocks_run and self.blocks_run[-1].reentrant):
            self.fail("a checkpoint's other output outside reentrant checkpointing")
            return out
        j = self.blocks_run[-1].nodes[1]  # the layer's CheckpointFunctionBackward, made right after its nodes
        if grad:
            self.nodes[j].slots = True
            self.edge[id(out)] = j
            self.keep.append(out)
        return out

    # -- RoCBert's embeddings (issue 32): the concatenation, the clone, the in-place adds into a Linear's view

    def concat(self, parts: Sequence[T], dim: int) -> T:
        """``torch.cat``: ``CatBackward0`` saves nothing; its backward hands each input a slice of the gradient
        (``narrow``: a view, no allocation; measured with ``backward_ledger``)."""
        self._begin()
        self._labelled("cat", "aten.cat")
        out = super().concat(parts, dim)
        if not out.grad:
            return out
        if any(p.itemsize != out.itemsize for p in parts):
            self.fail("a promoting concatenation")
        shapes = [p.shape for p in parts]

        def run(bw: Backward, g: T) -> list[T | None]:
            return [bw.alias(g, shape, g.strides) if p.grad else None for p, shape in zip(parts, shapes)]
        return self._node("CatBackward0", [self._edge(p) for p in parts], run, out, [])

    def clone(self, t: T) -> T:
        """``torch.clone``: a new storage; ``CloneBackward0`` passes the gradient on (a view)."""
        self._begin()
        self._labelled("clone", "aten.clone")
        out = Ops.pointwise(self, t)
        if not out.grad:
            return out
        return self._node("CloneBackward0", [self._edge(t)], lambda bw, g: [bw.alias(g, g.shape, g.strides)], out, [])

    def add_to_view(self, a: T, b: T) -> T:
        """``a += b`` where ``a`` is a Linear's 3-D output (a view of ``addmm``'s [N, out]) and ``b`` may broadcast
        (RoCBert's ``embedding_in += token_type_embeddings``, ``+= position_embeddings``). Autograd rebases the
        view's base: a ``CopySlices`` node (wrapping ``AddBackward0``) becomes the base's history, and the view's
        own grad_fn an ``AsStridedBackward0`` on it. Measured (``backward_ledger``): ``AsStridedBackward0``
        allocates the base's gradient (zeros, then the copy); ``CopySlices`` allocates ``result`` (the base's
        size, a copy of the incoming gradient) and a contiguous clone of the view's slice, which ``AddBackward0``
        hands to both inputs: ``b``'s gradient is that clone (summed to ``b``'s shape by ``validate_outputs``
        where ``b`` broadcasts, the clone then dropped), or the clone is dropped as ``apply`` returns when ``b``
        needs none. Nothing is saved; the forward allocates nothing."""
        self._begin()
        out = super().add_to_view(a, b)
        if not out.grad:
            return out
        # Under autocast the Linear's bf16 view takes the float32 lookups in place (the sum stays bf16); the engine's
        # validate_outputs sums ``b``'s gradient to its shape in bf16, then casts it to float32 (measured below).
        widening = self.lower is not None and a.itemsize < b.itemsize
        if not a.grad or (a.itemsize != b.itemsize and not widening):
            self.fail("an in-place add into a view that needed no gradient, or promoting")
            return out
        base = self._view_bases.get(a.storage)
        if base is None:  # the first in-place add: the view's history is the Linear's ViewBackward0 on addmm's
            view = self.edge.get(id(a))
            node = self.nodes[view] if view is not None else None
            if node is not None and node.name in ("AddBackward0", "ToCopyBackward0"):
                # peft's LoRA Linear returns ``result + ...`` (or its ``.to(dtype)``): no view, so autograd's
                # in-place ``AddBackward0`` is the tensor's history (``b``'s gradient summed where it broadcasts)
                return self._node("AddBackward0", [self._edge(a), self._edge(b)], self._add_backward(a, b), out)
            if node is None or node.name != "ViewBackward0" or node.nexts[0] is None:
                self.fail("an in-place add into a view of an unmodelled base")
                return out
            base = node.nexts[0]
        numel = 1
        for d in a.shape:
            numel *= d
        flat = (numel,)
        size, view_shape, b_shape, b_grad, b_size = a.itemsize, a.shape, b.shape, b.grad, b.itemsize

        def copy_slices(bw: Backward, g: T) -> list[T | None]:
            result = bw.alloc(flat, size, "aten.new_empty_strided")
            grad_slice = bw.alloc(view_shape, size, "aten.clone")
            if not b_grad:
                bw.drop(grad_slice.storage)
                return [result, None]
            if tuple(b_shape) == tuple(view_shape):
                summed = grad_slice
            else:
                summed = bw.alloc(b_shape, size, "aten.sum")  # validate_outputs' sum_to
                bw.drop(grad_slice.storage)
            if b_size == size:
                return [result, summed]
            # autocast (measured with backward_ledger, RoCBert's embeddings): validate_outputs then casts the bf16
            # gradient (summed or the clone) to float32, a new storage, and drops it
            cast = bw.alloc(b_shape, b_size, "aten._to_copy")
            bw.drop(summed.storage)
            return [result, cast]
        handle = T(flat, (1,), a.storage, True, size)
        self._node("CopySlices", [base, self._edge(b)], copy_slices, handle, [])
        copy = self.edge.pop(id(handle))
        self._view_bases[a.storage] = copy
        # as_strided_backward's storage is its ``grad.new_zeros(...)`` (what LiveBytes names it by; measured on YOSO's
        # context, whose view of the normalized context takes the convolution in place)
        self._node("AsStridedBackward0", [copy], lambda bw, g: [bw.alloc(flat, size, "aten.new_zeros")],
                   out, [])
        return out

    def scale_in_place(self, t: T) -> T:
        """``t /= number`` in place: ``DivBackward1`` (the gradient divided: a new tensor of ``t``'s shape) becomes
        ``t``'s history; nothing is saved, nothing allocated in the forward."""
        self._begin()
        out = super().scale_in_place(t)
        if not out.grad:
            return out
        return self._pointwise_backward("DivBackward1", "aten.div", t, out)

    # -- LayoutLM's attention (ALIGN's eager_attention_forward): the float32 softmax and the cast back


    def softmax_float32(self, t: T) -> T:
        """``softmax(x, dim, dtype=torch.float32)`` on CPU (``at::softmax``): ``x.toType(float32)`` (a copy,
        ``ToCopyBackward0``, dropped as softmax returns; none for a float32 input), then ``_softmax``, whose
        ``SoftmaxBackward0`` keeps its float32 output and allocates a float32 gradient."""
        self._begin()
        wide = t if t.itemsize == 4 else self._cast(t, 4)
        self._begin()
        self._labelled("softmax", "aten._softmax")
        out = self.new(wide.shape, wide.grad, 4)
        if wide is not t:
            self.release(wide)
        if not out.grad:
            return out
        self.save(out)
        return self._pointwise_backward("SoftmaxBackward0", "aten._softmax_backward_data", wide, out)

    def checkpoint_argument(self, t: T) -> None:
        """A tensor every later checkpointed block gets besides its hidden states (LayoutLM's mask): under
        non-reentrant checkpointing each block's frame keeps it, as it keeps the input, until the block's last node
        holding saved tensors has run (:func:`_run`); nothing is saved by a node."""
        if self.checkpointing and not self.reentrant:
            if t.storage not in self._block_args:  # passed to every layer: one holder per frame
                self._block_args.append(t.storage)
        elif self.checkpointing:
            self._positional(t)  # LayoutLM's mask, X-MOD's lang_ids: positional arguments

    # -- X-MOD's language adapters: ``hidden_states[lang_mask]`` and ``new_hidden_states[lang_mask] = ...``

    def index_rows(self, t: T, mask: T, rows: int) -> T:
        """``t[mask]`` (``IndexBackward0``, saving the bool mask): its backward, ``index_backward``, makes
        ``grad.new_zeros(t.shape)``, then ``.index_put(indices, grad, accumulate=True)`` out of place (a second
        tensor of ``t``'s shape), and drops the zeros (measured, even for no rows)."""
        self._begin()
        self._labelled("index", "aten.index")
        out = super().index_rows(t, mask, rows)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            return [bw.scattered(shape, shape, size, "aten.new_zeros", "aten.index_put")]
        return self._node("IndexBackward0", [self._edge(t)], run, out)

    def index_put(self, dest: T, mask: T, values: T) -> T:
        """``dest[mask] = values`` in place (``IndexPutBackward0``, saving the mask): its backward gives ``dest``
        ``grad.index_put(indices, zeros_like(values))`` (the zeros, then a tensor of ``dest``'s shape, the zeros
        dropped) where ``dest`` needs a gradient, then ``values`` ``grad.index(indices)`` (measured)."""
        self._begin()
        self._labelled("index_put_", "aten.index_put_")
        out = super().index_put(dest, mask, values)
        if not out.grad:
            return out
        if dest.itemsize != values.itemsize:
            self.fail("a promoting index_put_")
        dshape, vshape, size = dest.shape, values.shape, dest.itemsize
        dgrad, vgrad = dest.grad, values.grad

        def run(bw: Backward, g: T) -> list[T | None]:
            gd = gv = None
            if dgrad:
                gd = bw.scattered(vshape, dshape, size, "aten.zeros_like", "aten.index_put")
            if vgrad:
                gv = bw.alloc(vshape, size, "aten.index")
            return [gd, gv]
        return self._node("IndexPutBackward0", [self._edge(dest), self._edge(values)], run, out)

    def zeros_like(self, t: T) -> T:
        """``torch.zeros_like``: named as the aten operation that makes it."""
        self._begin()
        self._labelled("zeros_like", "aten.zeros_like")
        return super().zeros_like(t)

    def unused(self, fn: Callable[[], T]) -> T:
        """A branch the loss never reaches (an MLM class's pooler): its nodes are recorded but never run; what they
        save lives with them until the class's forward returns (:func:`replay_forward`: no earlier death), then is
        freed with the forward's locals, and its parameters get no ``.grad`` (their accumulators are forgotten)."""
        first, accumulators = len(self.nodes), dict(self.accumulators)
        out = super().unused(fn)
        for node in self.nodes[first:]:
            self.unreached.update(node.saved)
            node.saved = []
        self.accumulators = accumulators
        return out

    def discarded(self, fn: Callable[[], T]) -> T:
        """A branch the loss never reaches whose output Python drops inside the forward (DeBERTa's ``pos_dropout`` of
        a relative table no term reads, a shared projection no term reads): its nodes are recorded but never run and
        go with that output (the output's ``grad_fn``, and the nodes after it, hold them); what they save goes with
        them (:func:`_deaths`: at the later of its own last name and the output's), not at the forward's end as
        :meth:`unused`'s. Inside a checkpointed block the forward's nodes hold holders, not storages (non-reentrant's
        packs; reentrant's forward records none): each storage dies where Python drops it there; the recomputation's
        nodes hold the storages themselves (``_recomputation_hook``'s pack returns them), so there they go with the
        output again. Its parameters get no ``.grad`` (their accumulators are forgotten)."""
        first, accumulators = len(self.nodes), dict(self.accumulators)
        out = Sim.unused(self, fn)
        for node in self.nodes[first:]:
            for s in node.saved:
                self.hangs_on[s] = (out.storage, self._block is not None)
            node.saved = []
            # never run, so it hands nothing on: a reentrant block's graph does not reach outside it through one
            node.nexts = [None] * len(node.nexts)
        self.accumulators = accumulators
        return out

    # -- ModernBERT's operations (issue 32; facts measured with tests/crosscheck/peak_measure.backward_ledger)

    def _name_nodes(self, first: int, label: str) -> None:
        """The nodes made since ``first`` between modules named by the function they ran in and ``label``
        (``layers.3.mlp: mul``), as :meth:`new` names their storages: what the page says a backward peak lies at."""
        where = self._last.rsplit(".", 1)[0] + ": " + label
        for node in self.nodes[first:]:
            if not node.module and node.param is None:
                node.module = where.lstrip(": ")

    def constant_by(self, aten: str, shape: Sequence[int], itemsize: int) -> T:
        """A tensor needing no gradient made by ``aten`` (ModernBERT's rotary tables, its window mask)."""
        self._begin()
        self._labelled(aten.replace("aten.", "").lstrip("_"), aten)
        return self.new(shape, False, itemsize)

    def _like(self, t: T, grad: bool, itemsize: int) -> T:
        """A new tensor laid out as ``t`` (a pointwise result or ``.to()``: TensorIterator keeps a dense input's
        dimension order, :meth:`~.ops.Ops.elementwise_like`), in ``itemsize`` bytes a number."""
        out = self.new(t.shape, grad, itemsize)
        return T(out.shape, dense_strides_like(t), out.storage, out.grad, itemsize)

    def to_dtype(self, t: T, itemsize: int) -> T:
        """``t.to(dtype)`` (or ``.float()``): a copy keeping ``t``'s layout; ``ToCopyBackward0`` casts the gradient
        back (a new tensor in ``t``'s dtype)."""
        self._begin()
        self._labelled("to", "aten._to_copy")
        out = self._like(t, t.grad, itemsize)
        # _to_copy keeps only a dense layout, else suggest_memory_format's: of an overlapping view (an expanded one,
        # repeat_kv of one K/V head) a contiguous copy (measured)
        if _broadcast(t.shape, t.strides):
            out = T(out.shape, contiguous_strides(out.shape), out.storage, out.grad, itemsize)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize
        return self._node("ToCopyBackward0", [self._edge(t)], lambda bw, g: [bw.alloc(shape, size, "aten._to_copy")],
                          out, [])

    def _times_table(self, t: T, table: T, aten: str = "aten.mul") -> T:
        """``t * table`` (or ``t / table``: ``aten``) with a table needing no gradient: ``MulBackward0`` keeps the
        table, its backward allocates ``grad * table`` in ``t``'s shape and dtype."""
        self._begin()
        self._labelled(aten.replace("aten.", ""), aten)
        integral = table.itemsize in (1, 8)  # a bool or int64 table: the result in t's floating dtype
        out = self._like(t, t.grad, t.itemsize if integral else max(t.itemsize, table.itemsize))
        if not out.grad:
            return out
        self.save(table)
        if out.itemsize > t.itemsize:  # promoted (a bf16 Q times float32 cos under autocast): ``grad * table`` is
            shape, size, wide = t.shape, t.itemsize, out.itemsize  # float32, cast to bf16 by validate_outputs

            def run(bw: Backward, g: T) -> list[T | None]:
                product = bw.alloc(shape, wide, aten)
                cast = bw.alloc(shape, size, "aten._to_copy")
                bw.drop(product.storage)
                return [cast]
            return self._node("MulBackward0", [self._edge(t)], run, out)
        return self._pointwise_backward("MulBackward0", aten, t, out)

    def rotary_float(self, q: T, k: T, cos: T, sin: T) -> tuple[T, T]:
        """ModernBERT's ``apply_rotary_pos_emb`` op by op: per input ``x``, ``x.float()`` (a copy in bf16, dropped
        after the product), ``* cos``, ``rotate_half(x.float())`` (two slices, ``neg``, ``cat``: the negation and
        the second copy gone as it returns), ``* sin`` (the ``cat`` gone after it), the sum (both products gone);
        then both sums cast back (gone after the second cast). Backward (measured): ``SliceBackward0`` allocates
        its input's whole shape, ``CatBackward0`` hands on views, ``NegBackward0`` allocates its input's."""
        if q.shape[-1] == k.shape[-1] == 1 and cos.shape[-1] == 2:  # one-wide heads: broadcast to two columns
            return self._rotary_float_one_wide(q, k, cos, sin)
        if cos.shape[-1] != q.shape[-1]:
            self.fail("one-wide heads broadcast against the rotary tables")
            return super().rotary_float(q, k, cos, sin)
        first = len(self.nodes)
        outs = [self._rotate_float(x, cos, sin) for x in (q, k)]
        if q.itemsize != 4:
            cast = (self.to_dtype(outs[0], q.itemsize), self.to_dtype(outs[1], k.itemsize))
            self.release(*outs)
            outs = list(cast)
        self._name_nodes(first, "rotary")
        return outs[0], outs[1]

    def _rotate_float(self, x: T, cos: T, sin: T) -> T:
        wide = x if x.itemsize == 4 else self.to_dtype(x, 4)
        a = self._times_table(wide, cos)
        if wide is not x:
            self.release(wide)
        wide = x if x.itemsize == 4 else self.to_dtype(x, 4)
        half = x.shape[-1] // 2
        grad = wide.grad
        whole_shape = wide.shape  # its own name: ``shape`` is rebound to a half's below, which the closure would read

        def whole(bw: Backward, g: T) -> list[T | None]:
            return [bw.alloc(whole_shape, 4, "aten.slice_backward")]
        parts = []
        for _ in range(2):  # x[..., :half], x[..., half:]: views whose backward allocates the whole input
            part = T(x.shape[:-1] + (half,), wide.strides, wide.storage, grad, 4)
            if grad:
                part = self._node("SliceBackward0", [self._edge(wide)], whole, part, [])
            parts.append(part)
        self._begin()
        self._labelled("neg", "aten.neg")
        neg = self._like(parts[1], grad, 4)
        if grad:
            neg = self._pointwise_backward("NegBackward0", "aten.neg", parts[1], neg)
        self._labelled("cat", "aten.cat")
        cat = self.new(wide.shape, grad, 4)
        if grad:
            shape = parts[0].shape

            def halves(bw: Backward, g: T) -> list[T | None]:
                return [bw.alias(g, shape, g.strides), bw.alias(g, shape, g.strides)]
            cat = self._node("CatBackward0", [self._edge(neg), self._edge(parts[0])], halves, cat, [])
        self.release(neg)
        if wide is not x:
            self.release(wide)
        m = self._times_table(cat, sin)
        self.release(cat)
        self._begin()
        self._labelled("add", "aten.add")
        total = self._like(a, a.grad or m.grad, 4)
        if total.grad:
            total = self._node("AddBackward0", [self._edge(a), self._edge(m)], self._add_backward(a, m), total)
        self.release(a, m)
        return total

    def unbind_heads(self, t: T, dim: int) -> list[T]:
        """``unbind``: one ``UnbindBackward0`` for all parts (its backward stacks their gradients into a new tensor
        of ``t``'s shape)."""
        parts = Ops.unbind_heads(self, t, dim)
        if not t.grad:
            return parts
        return self._slotted("UnbindBackward0", "aten.stack", t, parts)

    def chunk_halves(self, t: T) -> list[T]:
        """``chunk(2, -1)``: one ``SplitBackward0`` (its backward concatenates both gradients: a new tensor)."""
        parts = Ops.chunk_halves(self, t)
        if not t.grad:
            return parts
        return self._slotted("SplitBackward0", "aten.cat", t, parts)

    def _slotted(self, name: str, op: str, t: T, parts: list[T]) -> list[T]:
        self._begin()
        shape, size = t.shape, t.itemsize
        handle = T(t.shape, t.strides, t.storage, True, t.itemsize)
        self._node(name, [self._edge(t)], lambda bw, g: [bw.alloc(shape, size, op)], handle, [])
        node = self.edge.pop(id(handle))
        self.nodes[node].slots = True
        for part in parts:
            self.edge[id(part)] = node
            self.keep.append(part)
        return parts

    # -- rotary position embeddings op by op (roformer, esm, nomic_bert, gte; issue 32). Each node as the
    #    backward ledger measured it (tests/crosscheck/peak_measure.backward_ledger): ``neg``'s gradient a new
    #    tensor, a slice's a new zero tensor of the whole input (``slice_backward``), ``stack``/``cat``'s views of
    #    the incoming gradient, ``t * table`` keeping the table, its gradient laid out as the incoming one.

    def rotate_one_wide(self, q: T, k: T, cos: T, sin: T) -> tuple[T, T]:
        """:meth:`~.ops.Ops.rotate_one_wide` op by op: per tensor ``t * cos`` (two wide, laid out as ``t``),
        ``rotate_half(t)`` (``x1 = t[..., :0]`` empty, ``x2 = t[..., 0:]`` an alias, ``cat((-x2, x1), -1)``: the
        negation a temporary of the ``cat``), its product by ``sin`` (two wide; the ``cat`` gone), their sum (both
        products gone). Measured with the backward ledger (GTE): each product's ``MulBackward0`` keeps its table and
        allocates ``grad * table`` (two wide), summed to one column by ``validate_outputs`` (the two-wide one freed);
        ``NegBackward0`` allocates; the empty slice's ``SliceBackward0`` allocates zeros of ``t``'s shape; ``t``'s
        three gradients are summed out of place. A bf16 Q or K times float32 tables (autocast) promotes each
        two-wide result, and ``validate_outputs`` casts the summed gradient back to bf16."""
        turned = [self._turn_one_wide(t, cos, sin) for t in (q, k)]
        return turned[0], turned[1]

    def _rotary_float_one_wide(self, q: T, k: T, cos: T, sin: T) -> tuple[T, T]:
        """ModernBERT's ``apply_rotary_pos_emb`` on one-wide heads: :meth:`rotate_one_wide`'s operations on
        ``x.float()`` (for float32 ``x`` itself; else a copy before each use, gone after it, as
        :meth:`rotary_float`'s), then both results cast back (the float32 ones gone after the second cast)."""
        if q.itemsize == k.itemsize == 4:
            return self.rotate_one_wide(q, k, cos, sin)
        outs = [self._turn_one_wide(x, cos, sin, True) for x in (q, k)]
        cast = (self.to_dtype(outs[0], q.itemsize), self.to_dtype(outs[1], k.itemsize))
        self.release(*outs)
        return cast

    def _turn_one_wide(self, t: T, cos: T, sin: T, upcast: bool = False) -> T:
        """One tensor of :meth:`rotate_one_wide` (``upcast``: each use of ``t`` a float32 copy, ModernBERT's)."""
        x = self.to_dtype(t, 4) if upcast else t
        wide, size = (*t.shape[:-1], cos.shape[-1]), max(x.itemsize, cos.itemsize)
        strides = _dense_strides(wide, x.strides)  # laid out as t (measured: [B, L, A, 2] for a head split)
        a = self._broadcast_times(x, cos, wide, strides, size)
        if upcast:  # (q.float() * cos): the copy a temporary; rotate_half(q.float()) makes another
            self.release(x)
            x = self.to_dtype(t, 4)
        empty = self.slice_last(x, 0)  # x1 (made first: its SliceBackward0 runs after the alias's)
        neg = self.neg(x)  # -x2, x2 an alias of t (AliasBackward0 hands the gradient on)
        half = self.join_last([neg, empty], False)
        self.release(neg)
        if upcast:
            self.release(x)
        b = self._broadcast_times(half, sin, wide, contiguous_strides(wide), max(x.itemsize, sin.itemsize))
        self.release(half)
        self._begin()
        self._labelled("add", "aten.add")
        made = self.new(wide, a.grad or b.grad, size)  # laid out as its first operand, ``t * cos``
        out = T(wide, strides, made.storage, made.grad, size)
        if out.grad:
            out = self._node("AddBackward0", [self._edge(a), self._edge(b)], self._add_backward(a, b), out)
        self.release(a, b)
        return out

    def _broadcast_times(self, t: T, table: T, wide: Sequence[int], strides: Sequence[int], size: int) -> T:
        """``t * table`` broadcast to ``wide`` (a one-wide head by two-wide cos or sin): ``MulBackward0`` keeps the
        table; its backward allocates ``grad * table`` (two wide) and ``validate_outputs`` sums it to ``t``'s shape
        (a new tensor, the two-wide one freed)."""
        self._begin()
        self._labelled("mul", "aten.mul")
        made = self.new(wide, t.grad, size)
        out = T(tuple(wide), tuple(strides), made.storage, made.grad, size)
        if not out.grad:
            return out
        if table.grad:
            self.fail("a rotary table needing a gradient")
        self.save(table)
        shape, itemsize = t.shape, t.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            product = bw.alloc(g.shape, g.itemsize, "aten.mul")
            summed = bw.alloc(shape, g.itemsize, "aten.sum")
            bw.drop(product.storage)
            if g.itemsize != itemsize:  # promoted (autocast): validate_outputs then casts it to t's dtype
                cast = bw.alloc(shape, itemsize, "aten._to_copy")
                bw.drop(summed.storage)
                summed = cast
            return [summed]
        return self._node("MulBackward0", [self._edge(t)], run, out)

    def fresh(self, shape: Sequence[int], aten: str, itemsize: int | None = None) -> T:
        self._begin()
        self._labelled(aten.replace("aten.", ""), aten)
        return self.new(shape, False, itemsize)

    def layer_argument(self, t: T, counted: bool = True, keyword: bool = True) -> None:
        """Under non-reentrant checkpointing every layer's frame keeps ``t`` (an argument besides the hidden
        states) until the layer's backward is done; nothing is saved in the forward. Under reentrant checkpointing
        a ``keyword`` argument is kept by the ``partial`` that ``CheckpointFunction`` keeps as ``ctx.run_function``
        until the graph goes (after the backward), a positional one saved by each layer's node
        (:meth:`reentrant_layer`)."""
        if self.checkpointing and not self.reentrant:
            self.arguments.add(t.storage)
        elif self.checkpointing and keyword:
            self.graph_held.update((t.storage, *self._hung_on((t.storage,))))
        elif self.checkpointing:
            self._positional(t)
        else:
            Ops.layer_argument(self, t, counted)

    def _positional(self, t: T) -> None:
        """A tensor every later reentrant checkpointed layer takes as a positional argument: ``ctx.save_for_backward``
        keeps it until the layer's node has run (one needing a gradient is not modelled)."""
        if t.grad:
            self.fail("reentrant checkpointing: a positional argument needing a gradient")
        if all(p.storage != t.storage for p in self.positional):
            self.positional.append(t)

    def _laid_out(self, t: T, grad: bool, aten: str, itemsize: int | None = None) -> T:
        """A pointwise result laid out as ``t`` (TensorIterator keeps its first input's order of dimensions)."""
        self._aten = aten
        out = self.new(t.shape, grad, t.itemsize if itemsize is None else itemsize)
        return T(out.shape, _dense_strides(t.shape, t.strides), out.storage, out.grad, out.itemsize)

    def divide(self, t: T) -> T:
        self._begin()
        self._labelled("div", "aten.div")
        out = Ops.pointwise(self, t)
        if not out.grad:
            return out
        return self._pointwise_backward("DivBackward1", "aten.div", t, out)

    def neg(self, t: T) -> T:
        """``-t``: ``NegBackward0`` allocates the negated gradient."""
        self._begin()
        self._labelled("neg")
        out = self._laid_out(t, t.grad, "aten.neg")
        return self._pointwise_backward("NegBackward0", "aten.neg", t, out) if out.grad else out

    def slice_last(self, t: T, length: int, step: int = 1) -> T:
        """``t[..., a:b:step]`` (a view): ``SliceBackward0`` allocates a zero tensor of ``t``'s shape and copies the
        gradient into it (``slice_backward``)."""
        out = self.narrow(t, len(t.shape) - 1, length, step)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize
        return self._node("SliceBackward0", [self._edge(t)],
                          lambda bw, g: [bw.alloc(shape, size, "aten.slice_backward")], out, [])

    def join_last(self, parts: Sequence[T], stack: bool) -> T:
        """``torch.stack(parts, -1)`` or ``torch.cat(parts, -1)``: a new contiguous tensor; the backward hands each
        part a view of the gradient (``unbind`` / ``narrow``), allocating nothing."""
        self._begin()
        self._labelled("stack" if stack else "cat", "aten.stack" if stack else "aten.cat")
        shape = parts[0].shape + (len(parts),) if stack else parts[0].shape[:-1] + (sum(p.shape[-1] for p in parts),)
        out = self.new(shape, any(p.grad for p in parts), parts[0].itemsize)
        if not out.grad:
            return out

        def run(bw: Backward, g: T) -> list[T | None]:
            if stack:
                return [bw.alias(g, g.shape[:-1], g.strides[:-1]) if p.grad else None for p in parts]
            return [bw.alias(g, p.shape, g.strides) if p.grad else None for p in parts]
        return self._node("StackBackward0" if stack else "CatBackward0", [self._edge(p) for p in parts], run, out, [])

    def mul_table(self, t: T, table: T) -> T:
        """``t * table`` with a table needing no gradient (rotary's cos and sin, broadcast): laid out as ``t``;
        ``MulBackward0`` keeps the table, its gradient ``grad * table`` is laid out as the incoming gradient."""
        self._begin()
        self._labelled("mul")
        wide = table.itemsize > t.itemsize
        if table.grad or (wide and (self.lower is None or table.itemsize != 4)):
            self.fail("a rotary table needing a gradient or of a wider dtype")
        # Under autocast a bf16 Q or K times a float32 table promotes (``mul`` is on no autocast list): a float32
        # product; its backward's ``grad * table`` is float32 too and ``validate_outputs`` casts it to bf16 (a new
        # tensor, the float32 one gone at once; measured: mul, _to_copy).
        out = self._laid_out(t, t.grad, "aten.mul", table.itemsize if wide else None)
        if not out.grad:
            return out
        self.save(table)
        shape, size, wider = t.shape, t.itemsize, table.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            strides = _dense_strides(g.shape, g.strides) if g.shape == shape else None
            if not wide:
                return [bw.alloc(shape, size, "aten.mul", strides)]
            product = bw.alloc(shape, wider, "aten.mul", strides)
            cast = bw.alloc(shape, size, "aten._to_copy", strides)
            bw.drop(product.storage)
            return [cast]
        return self._node("MulBackward0", [self._edge(t)], run, out)

    def add_like(self, a: T, b: T) -> T:
        """``a + b`` of one shape and dtype, laid out as ``a`` (``AddBackward0``: the gradient itself to both)."""
        self._begin()
        self._labelled("add")
        # Under autocast a bf16 tensor plus a float32 one promotes (NeoMME's V plus its float32 value embeddings):
        # the sum float32, the bf16 side's gradient cast back by validate_outputs (_add_backward).
        promoted = self.lower is not None and a.itemsize != b.itemsize
        out = self._laid_out(a, a.grad or b.grad, "aten.add", max(a.itemsize, b.itemsize) if promoted else None)
        if not out.grad:
            return out
        if a.shape != b.shape or (a.itemsize != b.itemsize and not promoted):
            self.fail("a broadcasting or promoting add")
        return self._node("AddBackward0", [self._edge(a), self._edge(b)], self._add_backward(a, b), out)

    def rotate(self, t: T, cos: T, sin: T, interleaved: bool, upcast: bool = False) -> T:
        """:meth:`~.ops.Ops.rotate` op by op, each temporary dropped where the expression drops it: RoFormer's
        ``stack([-t[..., 1::2], t[..., ::2]], -1).reshape_as(t)`` (made first, named by the caller) then
        ``t * cos + turned * sin``; else ``(t * cos) + (rotate_half(t) * sin)``, ``rotate_half`` being
        ``cat((-t[..., h:], t[..., :h]), -1)``; ``upcast``: ``t.float()`` read twice (ESM's, a bf16 model: two copies,
        each gone once its expression has used it), the sum in float32."""
        half = t.shape[-1] // 2
        if interleaved:
            odd = self.slice_last(t, half, 2)
            neg = self.neg(odd)
            even = self.slice_last(t, half, 2)
            pair = self.join_last([neg, even], True)
            self.release(neg)
            turned = self.view(pair, t.shape)
            a = self.mul_table(t, cos)
            b = self.mul_table(turned, sin)
        else:
            wide = self.cast_like(t, 4) if upcast else t
            a = self.mul_table(wide, cos)
            if upcast:
                self.release(wide)
            wide = self.cast_like(t, 4) if upcast else t
            x1 = self.slice_last(wide, half)
            x2 = self.slice_last(wide, wide.shape[-1] - half)
            neg = self.neg(x2)
            turned = self.join_last([neg, x1], False)
            self.release(neg)
            if upcast:
                self.release(wide)
            b = self.mul_table(turned, sin)
            self.release(turned)
        out = self.add_like(a, b)
        self.release(a, b)
        return out

    def split_views(self, t: T) -> list[T]:
        """:meth:`~.ops.Ops.split_views`: one ``SplitBackward0`` for all parts (its backward ``cat``s their
        gradients into a new tensor of ``t``'s shape), each part's ``SqueezeBackward1`` a view of its gradient."""
        self._begin()
        parts = Ops.split_views(self, t)
        if not t.grad:
            return parts
        shape, size = t.shape, t.itemsize
        handle = T(t.shape, t.strides, t.storage, True, t.itemsize)
        self._node("SplitBackward0", [self._edge(t)], lambda bw, g: [bw.alloc(shape, size, "aten.cat")], handle, [])
        node = self.edge.pop(id(handle))
        self.nodes[node].slots = True
        for part in parts:
            self.edge[id(part)] = node
            self.keep.append(part)
        return parts

    def glu_product(self, a: T, b: T) -> T:
        """``act(input) * gate``: ``MulBackward0`` keeps both factors and allocates both gradients (self's first)."""
        self._begin()
        self._labelled("mul", "aten.mul")
        out = Ops.glu_product(self, a, b)
        if not out.grad:
            return out

        def run(bw: Backward, g: T) -> list[T | None]:
            ga = bw.alloc(a.shape, a.itemsize, "aten.mul") if a.grad else None
            gb = bw.alloc(b.shape, b.itemsize, "aten.mul") if b.grad else None
            return [ga, gb]
        out = self._node("MulBackward0", [self._edge(a), self._edge(b)], run, out)
        self._name_nodes(len(self.nodes) - 1, "mul")
        return out


    def softmax_to_float(self, t: T) -> T:
        """``softmax(t, dtype=torch.float32)``: a bf16 input cast first (``ToCopyBackward0``; the copy gone once
        ``_softmax`` has run), then ``_softmax``, which keeps its float32 output."""
        first = len(self.nodes)
        x = t if t.itemsize == 4 else self.to_dtype(t, 4)
        self._begin()
        self._labelled("softmax", "aten._softmax")
        out = self.new(x.shape, x.grad, 4)
        if out.grad:
            self.save(out)
            out = self._pointwise_backward("SoftmaxBackward0", "aten._softmax_backward_data", x, out)
        if x is not t:
            self.release(x)
        self._name_nodes(first, "softmax")
        return out


    def masked_mean(self, t: T) -> T:
        """ModernBERT's mean pooling (:meth:`~.ops.Ops.masked_mean`): the bool mask of ones (``aten.ones``, named
        until the class's forward returns), the product (``MulBackward0`` keeps the mask), ``sum(1)``
        (``SumBackward1`` hands on an expanded view), the int64 count, the division (``DivBackward0`` keeps the
        count); the product, the sum and the count are temporaries of the expression."""
        b, n, h = t.shape
        mask = self.constant_by("aten.ones", (b, n), 1)
        product = self._times_table(t, mask)
        self._begin()
        self._labelled("sum", "aten.sum")
        summed = self.new((b, h), product.grad, product.itemsize)
        if summed.grad:
            shape = product.shape
            summed = self._node("SumBackward1", [self._edge(product)],
                                lambda bw, g: [bw.alias(g, shape, (g.strides[0], 0, g.strides[1]))], summed, [])
        self.release(product)
        count = self.constant_by("aten.sum", (b, 1), 8)
        out = self._times_table(summed, count, "aten.div")
        self.release(summed, count)
        return out


    # -- EuroBERT's operations (issue 32; facts measured with tests/crosscheck/peak_measure.backward_ledger)

    def rotary_plain(self, q: T, k: T, cos: T, sin: T) -> tuple[T, T]:
        """Llama's ``apply_rotary_pos_emb`` op by op in the model's dtype: per input, ``x * cos``,
        ``rotate_half(x)`` (slices, ``neg``, ``cat``; the negation gone as it returns), ``* sin`` (the ``cat`` gone
        after it), the sum (both products gone). Backward as :meth:`rotary_float`'s."""
        first = len(self.nodes)
        outs = [self._rotate(x, cos, sin) for x in (q, k)]
        self._name_nodes(first, "rotary")
        return outs[0], outs[1]

    def _rotate(self, x: T, cos: T, sin: T) -> T:
        a = self._times_table(x, cos)
        half = x.shape[-1] // 2
        grad, shape, size = x.grad, x.shape, x.itemsize

        def whole(bw: Backward, g: T) -> list[T | None]:
            return [bw.alloc(shape, size, "aten.slice_backward")]
        parts = []
        for _ in range(2):
            part = T(x.shape[:-1] + (half,), x.strides, x.storage, grad, size)
            if grad:
                part = self._node("SliceBackward0", [self._edge(x)], whole, part, [])
            parts.append(part)
        self._begin()
        self._labelled("neg", "aten.neg")
        neg = self._like(parts[1], grad, size)
        if grad:
            neg = self._pointwise_backward("NegBackward0", "aten.neg", parts[1], neg)
        self._labelled("cat", "aten.cat")
        cat = self.new(x.shape, grad, size)
        if grad:
            half_shape = parts[0].shape

            def halves(bw: Backward, g: T) -> list[T | None]:
                return [bw.alias(g, half_shape, g.strides), bw.alias(g, half_shape, g.strides)]
            cat = self._node("CatBackward0", [self._edge(neg), self._edge(parts[0])], halves, cat, [])
        self.release(neg)
        m = self._times_table(cat, sin)
        self.release(cat)
        self._begin()
        self._labelled("add", "aten.add")
        total = self._like(a, a.grad or m.grad, a.itemsize)
        if total.grad:
            total = self._node("AddBackward0", [self._edge(a), self._edge(m)], self._add_backward(a, m), total)
        self.release(a, m)
        return total

    def mean_tokens(self, t: T) -> T:
        """``t.mean(dim=1)``: ``MeanBackward1`` allocates the expanded gradient divided by L (``t``'s shape)."""
        self._begin()
        self._labelled("mean", "aten.mean")
        out = self.new(t.shape[:1] + t.shape[2:], t.grad, t.itemsize)
        if not out.grad:
            return out
        return self._pointwise_backward("MeanBackward1", "aten.div", t, out)

    def _rsqrt_mean_square(self, x32: T, shape: Sequence[int], rows: Sequence[int], x: T | None) -> T:
        """``torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)`` op by op, as both RMS norms run it (measured):
        ``pow`` (``PowBackward0`` keeps x32; its backward three tensors of x's shape, two freed), ``mean``
        (``MeanBackward1``: one; its input gone once it ran), ``+ eps`` (gone after ``rsqrt``), ``rsqrt`` (keeps its
        output; three rows, two freed). ``x``: T5's narrower input, whose float32 copy is a temporary of the
        expression, released once ``pow`` has it (``LlamaRMSNorm`` names it until it returns: None)."""

        def three(dims: Sequence[int]) -> Callable[[Backward, T], list[T | None]]:
            def run(bw: Backward, g: T) -> list[T | None]:
                first, second = bw.alloc(dims, 4, "aten.pow"), bw.alloc(dims, 4, "aten.mul")
                out = bw.alloc(dims, 4, "aten.mul")
                bw.drop(first.storage)
                bw.drop(second.storage)
                return [out]
            return run
        self._begin()
        self._labelled("pow", "aten.pow")
        power = self.new(shape, x32.grad, 4)
        if power.grad:
            self.save(x32)
            power = self._node("PowBackward0", [self._edge(x32)], three(shape), power)
        if x is not None and x32 is not x:
            self.release(x32)  # a temporary of the expression (kept by pow)
        self._labelled("mean", "aten.mean")
        variance = self.new(rows, power.grad, 4)
        if variance.grad:
            variance = self._pointwise_backward("MeanBackward1", "aten.div", power, variance)
        self.release(power)
        self._labelled("add", "aten.add")
        shifted = self.new(rows, variance.grad, 4)
        if shifted.grad:
            shifted = self._node("AddBackward1", [self._edge(variance)],
                                 lambda bw, g: [bw.alias(g, g.shape, g.strides)], shifted, [])
        self._labelled("rsqrt", "aten.rsqrt")
        root = self.new(rows, shifted.grad, 4)
        if root.grad:
            self.save(root)
            root = self._node("RsqrtBackward0", [self._edge(shifted)], three(rows), root)
        self.release(shifted)
        return root

    def rms_norm_llama(self, module: str, x: T) -> T:
        """``LlamaRMSNorm`` op by op (:meth:`~.modules.Sim.rms_norm_llama`): ``x.to(float32)`` (a copy below
        float32), ``pow(2)`` (gone after the mean), ``mean`` (named until the return), ``+ eps`` (gone after
        ``rsqrt``), ``rsqrt``, the product (named until the return), ``.to(dtype)``, ``weight *`` (the cast a
        temporary). Backward (measured): ``PowBackward0`` three tensors of x's shape, two freed; ``MeanBackward1``
        one; ``RsqrtBackward0`` three rows, two freed; the products both gradients, a broadcast factor's summed
        (``sum_to``: the full one freed)."""
        trains = self.param_trains(module + ".weight")
        mark = self.scope()
        with self._in(module):
            x32 = x if x.itemsize == 4 else self.to_dtype(x, 4)
            shape, rows = x.shape, x.shape[:-1] + (1,)
            root = self._rsqrt_mean_square(x32, shape, rows, None)
            self._begin()
            self._labelled("mul", "aten.mul")
            normed = self.new(shape, x32.grad, 4)
            if normed.grad:
                self.save(x32)
                self.save(root)

                def product(bw: Backward, g: T) -> list[T | None]:
                    gx = bw.alloc(shape, 4, "aten.mul")
                    full = bw.alloc(shape, 4, "aten.mul")
                    bw.applied()  # validate_outputs sums the broadcast factor's gradient after apply has returned
                    gr = bw.alloc(rows, 4, "aten.sum")
                    bw.drop(full.storage)
                    return [gx, gr]
                normed = self._node("MulBackward0", [self._edge(x32), self._edge(root)], product, normed)
            self.release(root)  # hidden_states * torch.rsqrt(...): a temporary (unless kept)
            if x32 is not x:
                self.release(x32)  # hidden_states rebound
            cast = normed if x.itemsize == 4 else self.to_dtype(normed, x.itemsize)
            self._begin()
            self._labelled("mul", "aten.mul")
            out = self.new(shape, cast.grad or trains, x.itemsize)
            if out.grad:
                if trains:
                    self.save(cast)
                width, size = shape[-1], x.itemsize

                def weighted(bw: Backward, g: T) -> list[T | None]:
                    full = bw.alloc(shape, size, "aten.mul") if trains else None
                    gh = bw.alloc(shape, size, "aten.mul") if cast.grad else None
                    gw = None
                    if full is not None:
                        # validate_outputs sums it to [H] after apply has returned: a checkpointed layer's unpacked
                        # normed states go first (measured with backward_ledger, EuroBERT under checkpointing: 144
                        # bytes over, the sum counted beside them)
                        bw.applied()
                        gw = bw.alloc((width,), size, "aten.sum")
                        bw.drop(full.storage)
                    return [gw, gh]
                nexts = [self._accumulator(module + ".weight") if trains else None, self._edge(cast)]
                out = self._node("MulBackward0", nexts, weighted, out)
            if cast is not normed:
                self.release(cast)
        return self.end_scope(mark, out)


    def expand_summed(self, t: T, shape: Sequence[int]) -> T:
        """``expand`` over a broadcast dimension (``repeat_kv``): ``ExpandBackward0`` sums the gradient back to
        ``t``'s shape (``sum_to``: a new tensor, measured)."""
        out = Ops.expand(self, t, shape)
        if not out.grad:
            return out
        self._begin()
        self._labelled("expand", "aten.expand")
        size, dims = t.itemsize, t.shape
        return self._node("ExpandBackward0", [self._edge(t)], lambda bw, g: [bw.alloc(dims, size, "aten.sum")], out, [])


    # -- DeBERTa-v2's disentangled attention (the facts measured with ``peak_measure.backward_ledger``)

    def masked_fill_(self, t: T, mask: T) -> T:
        """In place: ``MaskedFillBackward0`` (keeps the mask; ``grad.masked_fill(mask, 0)`` a new tensor)."""
        self._begin()
        self._labelled("masked_fill_", "aten.masked_fill_")
        out = super().masked_fill_(t, mask)
        if not out.grad:
            return out
        return self._pointwise_backward("MaskedFillBackward0", "aten.masked_fill", t, out)

    def conv1d_length(self, module: str, x: T, out_len: int, w: T | None = None) -> T:
        """``ConvolutionBackward0`` (keeps the input; the weight is a parameter): ``convolution_backward`` returns
        the input's, the weight's and the bias's gradients, each a new tensor (one operation).

        Under autocast (measured, DeBERTa-v2's ``encoder.conv``): ``conv1d`` casts its bias, its weight and its
        float32 input to bf16 in that order (as :meth:`_linear`; a trained parameter's copy cached), the node keeps
        the input's and the weight's copies, its three gradients are bf16 and go to the copies' ``ToCopyBackward0``
        (input, weight, bias: the reverse of the casts), which cast them back to float32."""
        self._begin()
        self._labelled("convolution", "aten.convolution")
        weight, bias = module + ".weight", module + ".bias"
        shape = self.shapes[weight]
        bias_copy = None
        mark = self._next
        if self.lower is not None:
            if module in self.lora:
                self.fail("LoRA on a convolution under autocast")
            with self._autocast_call():
                if bias in self.shapes:
                    bias_copy = self.weight_copy(self.storage_name(bias), (shape[0],), self.param_trains(bias))
                w = self.weight_copy(self.storage_name(weight), shape, self.param_trains(weight))
                x = self.lowered(x)
        out = super().conv1d_length(module, x, out_len, w)
        for s in range(mark + 1, self._next):  # the input's and a frozen parameter's copies: kept only if saved
            if s not in self.cached and s != out.storage:
                self._die(s, self._next)
        if not out.grad:
            return out
        size = out.itemsize
        w_grad, b_grad = self.param_trains(weight), bias in self.shapes and self.param_trains(bias)
        if module in self.lora:
            self.fail("LoRA on a convolution")

        def run(bw: Backward, g: T) -> list[T | None]:
            op = "aten.convolution_backward"
            gx = bw.alloc(x.shape, x.itemsize, op) if x.grad else None
            gw = bw.alloc(shape, size, op) if w_grad else None
            gb = bw.alloc((shape[0],), size, op) if b_grad else None
            return [gx, gw, gb]
        nexts = [self._edge(x), self._accumulator(weight) if w_grad else None,
                 self._accumulator(bias) if b_grad else None]
        if w is not None:  # autocast: to the copies' ToCopyBackward0
            nexts = [self._edge(x), self._edge(w) if w_grad else None,
                     self._edge(bias_copy) if b_grad and bias_copy is not None else None]
        return self._node("ConvolutionBackward0", nexts, run, out)

    def matmul_param(self, x: T, name: str) -> T:
        """``matmul(x, param.t())``: :meth:`mm`'s node, its weight's gradient sent to ``name``'s ``AccumulateGrad``."""
        self._weight = name
        try:
            return super().matmul_param(x, name)
        finally:
            self._weight = None

    def frame_keeps(self, *ts: T) -> None:
        """The tensors every checkpointed layer from here reads besides its input (an argument, a ``partial``'s
        keyword): under non-reentrant checkpointing each layer's frame keeps them until the backward has run it."""
        kept = [t.storage for t in ts if self.storages.get(t.storage, 0)]
        self.frame_kept = tuple(kept) + self._hung_on(kept)

    def saved_with(self, out: T, *ts: T) -> None:
        """What the unreached nodes of ``out``'s graph save (BigBird's probability matrix's ``ScatterBackward``
        indices): no node of the backward holds them; they go with ``out`` (:attr:`hangs_on`), or with the nodes
        that also save them."""
        for t in ts:
            Ops.save(self, t)
            self.hangs_on[t.storage] = (out.storage, self._block is not None)

    def _hung_on(self, owners: Sequence[int]) -> tuple[int, ...]:
        """What a :meth:`discarded` branch's nodes save on one of ``owners`` (its ``grad_fn`` holds them): kept as long
        as it is (a frame's or a ``partial``'s tensor)."""
        return tuple(s for s, (owner, packed) in self.hangs_on.items()
                     if owner in owners and not packed and self.storages.get(s, 0))

    def constant(self, shape: Sequence[int], itemsize: int, op: str = "") -> T:
        """A tensor made in the forward that needs no gradient, named by the aten operation that makes it."""
        if op:
            self._aten = op
        return super().constant(shape, itemsize, op)

    def parameter(self, name: str, shape: Sequence[int]) -> T:
        """A parameter read as a tensor (``rel_embeddings.weight``): its gradient goes to its ``AccumulateGrad``."""
        out = super().parameter(name, shape)
        if out.grad:
            self.edge[id(out)] = self._accumulator(name)
            self.keep.append(out)
        return out

    def parameter_t(self, name: str) -> T:
        """:meth:`~.modules.Sim.parameter_t`: ``TBackward0`` hands ``AccumulateGrad`` the gradient transposed (or, for a
        tied table, ``InputBuffer`` sums it with the table's own in that layout), which fails its layout contract: it
        keeps a contiguous copy (``clone_obey_contract``; measured, MobileBERT's MLM decoder)."""
        out = super().parameter_t(name)
        if out.grad:
            self.nodes[self._accumulator(name)].copies = True
        return out

    def op_with_constant(self, t: T, other: T, op: str = "aten.mul") -> T:
        """``t * other``, ``t / other`` (``MulBackward0``, ``DivBackward0``: keep ``other``; the gradient
        ``grad * other`` a new tensor of ``t``'s shape)."""
        self._begin()
        self._labelled(op.replace("aten.", ""), op)
        out = super().op_with_constant(t, other, op)
        if not out.grad:
            return out
        if other.grad:
            self.fail("a product whose both factors need a gradient")
        name = "DivBackward0" if op == "aten.div" else "MulBackward0"
        if out.itemsize != t.itemsize:  # autocast promoted a bf16 ``t`` (YOSO's values times the float32 mask)
            shape, wide, narrow = t.shape, out.itemsize, t.itemsize

            def promoted(bw: Backward, g: T) -> list[T | None]:
                full = bw.alloc(shape, wide, op)  # ``grad * other`` in the result's dtype
                cast = bw.alloc(shape, narrow, "aten._to_copy")  # validate_outputs casts it to ``t``'s
                bw.drop(full.storage)
                return [cast]
            return self._node(name, [self._edge(t)], promoted, out)
        return self._pointwise_backward(name, op, t, out)

    def plus_scalar(self, t: T) -> T:
        """``t + 0`` (``score += x`` with ``score = 0``): a new tensor; ``AddBackward`` hands the gradient on."""
        self._begin()
        self._labelled("add", "aten.add")
        out = super().plus_scalar(t)
        if not out.grad:
            return out
        return self._node("AddBackward0", [self._edge(t)], _passed(1), out, [])

    def repeat(self, t: T, shape: Sequence[int]) -> T:
        """``RepeatBackward0``: the gradient summed back to ``t``'s shape, a new tensor (keeps only sizes)."""
        self._begin()
        self._labelled("repeat", "aten.repeat")
        out = super().repeat(t, shape)
        if not out.grad:
            return out
        return self._pointwise_backward("RepeatBackward0", "aten.sum", t, out)

    def gather(self, t: T, index: T, shape: Sequence[int]) -> T:
        """``GatherBackward0`` keeps ``t`` and the index; ``gather_backward`` makes ``zeros`` of ``t``'s shape, then
        ``scatter_add`` into a new tensor, and frees the zeros (measured: two allocations of ``t``'s size)."""
        self._begin()
        self._labelled("gather", "aten.gather")
        out = super().gather(t, index, shape)
        if not out.grad:
            return out
        size, full = t.itemsize, t.shape

        def run(bw: Backward, g: T) -> list[T | None]:
            return [bw.scattered(full, full, size, "aten.zeros", "aten.scatter_add")]
        return self._node("GatherBackward0", [self._edge(t)], run, out)

    # -- ESM's operations op by op (issue 32)

    def scalar(self, t: T, aten: str = "aten.mul") -> T:
        """``t * number`` or ``t / number`` laid out as ``t`` (a transposed view's order kept): ``MulBackward1`` /
        ``DivBackward1`` allocate the gradient, laid out as the incoming one."""
        self._begin()
        self._labelled(aten.replace("aten.", ""), aten)
        out = self._laid_out(t, t.grad, aten)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            return [bw.alloc(shape, size, aten, _dense_strides(g.shape, g.strides) if g.shape == shape else None)]
        return self._node("MulBackward1" if aten == "aten.mul" else "DivBackward1", [self._edge(t)], run, out, [])

    def cast_like(self, t: T, itemsize: int) -> T:
        """``t.to(dtype)`` keeping ``t``'s layout; ``ToCopyBackward0`` casts the gradient back (a new tensor)."""
        self._begin()
        self._labelled("to", "aten._to_copy")
        out = self._laid_out(t, t.grad, "aten._to_copy", itemsize)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize
        return self._node("ToCopyBackward0", [self._edge(t)],
                          lambda bw, g: [bw.alloc(shape, size, "aten._to_copy", _dense_strides(g.shape, g.strides))],
                          out, [])

    def masked_fill(self, t: T, mask: T) -> T:
        """``t.masked_fill(mask, 0.0)``: ``MaskedFillBackward0`` keeps the mask, allocates the filled gradient."""
        self._begin()
        self._labelled("masked_fill", "aten.masked_fill")
        out = Ops.masked_fill(self, t, mask)
        return self._pointwise_backward("MaskedFillBackward0", "aten.masked_fill", t, out) if out.grad else out

    def scale_by(self, t: T, factor: T, itemsize: int | None = None) -> T:
        """``t / factor`` (ESM's token-dropout rescaling, a float32 factor): ``DivBackward0`` keeps the factor; its
        gradient is computed in the result's dtype, then cast to ``t``'s dtype by ``validate_outputs`` (a new tensor,
        the incoming gradient still held) where the division promoted."""
        self._begin()
        self._labelled("div", "aten.div")
        out = Ops.scale_by(self, t, factor, itemsize)
        if not out.grad:
            return out
        if factor.grad:
            self.fail("a factor needing a gradient")
        shape, size, wide = t.shape, t.itemsize, out.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            ga = bw.alloc(shape, wide, "aten.div")
            if wide == size:
                return [ga]
            gb = bw.alloc(shape, size, "aten._to_copy")
            bw.drop(ga.storage)
            return [gb]
        return self._node("DivBackward0", [self._edge(t)], run, out)

    def add_param(self, t: T, name: str) -> T:
        """``t + parameter`` (ESM's ``decoder(x) + self.bias``, broadcast): ``AddBackward0`` hands the gradient on
        as it is and sums it to the parameter's shape (``sum_to``, a new tensor)."""
        self._begin()
        self._labelled("add", "aten.add")
        trains = self.param_trains(name)
        out = self.new(t.shape, t.grad or trains)
        if not out.grad:
            return out
        width = self.shapes[name]

        def run(bw: Backward, g: T) -> list[T | None]:
            first: T | None = None
            if t.grad and t.itemsize != g.itemsize:  # autocast: bf16 logits + the float32 bias promoted; the
                first = bw.alloc(t.shape, t.itemsize, "aten._to_copy")  # gradient cast back (validate_outputs)
            else:
                first = bw.alias(g, g.shape, g.strides) if t.grad else None
            return [first, bw.alloc(width, g.itemsize, "aten.sum") if trains else None]
        return self._node("AddBackward0", [self._edge(t), self._accumulator(name) if trains else None], run, out, [])

    def gelu_erf(self, t: T) -> T:
        """ESM's ``x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))`` op by op: ``x * 0.5``, ``x / sqrt 2`` (kept by
        ``ErfBackward0``, whose ``2 / sqrt(pi) * exp(-(x.pow(2))) * grad`` holds four temporaries until the
        expression ends), ``erf``, ``1 + erf`` (the erf dropped), the product (keeping both factors)."""
        self._begin()
        shape, size = t.shape, t.itemsize
        half = self.scalar(t)
        scaled = self.scalar(t, "aten.div")
        self._labelled("erf", "aten.erf")
        erf = self.new(shape, t.grad, size)  # in t's dtype (bf16 under autocast, after a Linear)
        if erf.grad:
            self.save(scaled)

            def erf_backward(bw: Backward, g: T) -> list[T | None]:
                temps = [bw.alloc(shape, size, op) for op in ("aten.pow", "aten.neg", "aten.exp", "aten.mul")]
                out = bw.alloc(shape, size, "aten.mul")
                for temp in temps:
                    bw.drop(temp.storage)
                return [out]
            erf = self._node("ErfBackward0", [self._edge(scaled)], erf_backward, erf)
        self.release(scaled)  # erf's argument, gone as it returns
        self._labelled("add", "aten.add")
        shifted = self.new(shape, t.grad, size)
        if shifted.grad:
            shifted = self._node("AddBackward1", [self._edge(erf)], lambda bw, g: [bw.alias(g, g.shape, g.strides)],
                                 shifted, [])
        self.release(erf)
        self._labelled("mul", "aten.mul")
        out = self.new(shape, t.grad, size)
        if out.grad:
            self.save(half)
            self.save(shifted)
            out = self._node("MulBackward0", [self._edge(half), self._edge(shifted)],
                             lambda bw, g: [bw.alloc(shape, size, "aten.mul"), bw.alloc(shape, size, "aten.mul")], out)
        self.release(half, shifted)
        return out

    # -- Nomic BERT's SwiGLU op by op (issue 32)

    def silu(self, t: T) -> T:
        """``silu``: ``SiluBackward0`` keeps its input, allocates the gradient (``silu_backward``)."""
        self._begin()
        self._labelled("silu", "aten.silu")
        out = Ops.keep_input(self, t)
        return self._pointwise_backward("SiluBackward0", "aten.silu_backward", t, out) if out.grad else out

    def mul_like(self, a: T, b: T) -> T:
        """``a * b`` of one shape (``MulBackward0`` keeps each factor for the other's gradient; the backward
        allocates ``a``'s gradient, then ``b``'s)."""
        self._begin()
        self._labelled("mul", "aten.mul")
        out = Ops.mul_like(self, a, b)
        if not out.grad:
            return out
        if a.shape != b.shape or a.itemsize != b.itemsize:
            self.fail("a broadcasting or promoting product")

        def run(bw: Backward, g: T) -> list[T | None]:
            return [bw.alloc(a.shape, a.itemsize, "aten.mul") if a.grad else None,
                    bw.alloc(b.shape, b.itemsize, "aten.mul") if b.grad else None]
        return self._node("MulBackward0", [self._edge(a), self._edge(b)], run, out)


    # -- T5's relative position bias (issue 32; measured with ``peak_measure.backward_ledger``)

    def permute(self, t: T, dims: Sequence[int]) -> T:
        """``t.permute(dims)``: a view; ``PermuteBackward0`` hands on the gradient permuted back (a view, nothing
        allocated: T5's ``values.permute([2, 0, 1])``, whose gradient ``embedding_dense_backward`` reads as it is)."""
        out = Ops.permute(self, t, dims)
        if not out.grad:
            return out
        inverse = [0] * len(dims)
        for i, d in enumerate(dims):
            inverse[d] = i

        def run(bw: Backward, g: T) -> list[T | None]:
            return [bw.alias(g, [g.shape[i] for i in inverse], [g.strides[i] for i in inverse])]
        return self._node("PermuteBackward0", [self._edge(t)], run, out, [])

    def rms_norm_t5(self, module: str, x: T) -> T:
        """``T5LayerNorm`` op by op (measured with ``peak_measure.backward_ledger``): ``x.to(float32)`` (a bf16 x's
        copy, kept by ``pow``), ``pow``, ``mean`` (named until the return), ``+ eps``, ``rsqrt``, then x (not its
        copy) times the float32 rsqrt (``MulBackward0`` keeps both; its backward allocates ``grad * rsqrt`` and
        ``grad * x`` in float32, then ``validate_outputs`` casts x's to a bf16 x's dtype, the float32 one gone, and
        sums the rsqrt's to [.., 1]), ``.to(bf16)`` in a bf16 model (the float32 product dropped), ``weight *``
        (its backward's ``sum_to`` of the weight's gradient in ``validate_outputs`` too). A float32 x runs
        ``LlamaRMSNorm``'s operations; a checkpointed block's unpacked tensors go before ``validate_outputs``."""
        trains = self.param_trains(module + ".weight")
        mark = self.scope()
        with self._in(module):
            shape, rows, size = x.shape, x.shape[:-1] + (1,), x.itemsize
            x32 = x if size == 4 else self.to_dtype(x, 4)
            root = self._rsqrt_mean_square(x32, shape, rows, x)
            self._begin()
            self._labelled("mul", "aten.mul")
            normed = self.new(shape, x.grad or root.grad, 4)
            if normed.grad:
                self.save(x)
                self.save(root)

                def product(bw: Backward, g: T) -> list[T | None]:
                    gx = bw.alloc(shape, 4, "aten.mul")
                    full = bw.alloc(shape, 4, "aten.mul")
                    bw.applied()  # a checkpointed block's unpacked x and rsqrt go before validate_outputs
                    if size != 4:  # validate_outputs casts x's gradient to x's dtype
                        wide, gx = gx, bw.alloc(shape, size, "aten._to_copy")
                        bw.drop(wide.storage)
                    gr = bw.alloc(rows, 4, "aten.sum")
                    bw.drop(full.storage)
                    return [gx, gr]
                normed = self._node("MulBackward0", [self._edge(x), self._edge(root)], product, normed)
            self.release(root)
            cast = normed
            if size != 4:
                cast = self.to_dtype(normed, size)
                self.release(normed)  # hidden_states rebound
            self._begin()
            self._labelled("mul", "aten.mul")
            out = self.new(shape, cast.grad or trains, size)
            if out.grad:
                if trains:
                    self.save(cast)
                width = shape[-1]

                def weighted(bw: Backward, g: T) -> list[T | None]:
                    full = bw.alloc(shape, size, "aten.mul") if trains else None
                    gh = bw.alloc(shape, size, "aten.mul") if cast.grad else None
                    gw = None
                    bw.applied()
                    if full is not None:  # validate_outputs sums the weight's to [H]
                        gw = bw.alloc((width,), size, "aten.sum")
                        bw.drop(full.storage)
                    return [gw, gh]
                out = self._node("MulBackward0", [self._accumulator(module + ".weight") if trains else None,
                                                  self._edge(cast)], weighted, out)
            if cast is not normed:
                self.release(cast)
        return self.end_scope(mark, out)

    def sdpa_math_replayed(self, q: T, k: T, v: T, mask: T | None = None, cached: bool = False) -> T:
        """SDPA's math path op by op (T5's trained position bias as the mask; float32 or a bf16 model's, whose q, k and
        v it copies to float32 first (``ToCopyBackward0`` each), adds the bf16 mask promoting (:meth:`_math_mask_add`),
        makes its unused second output ``attn.to(bf16)`` and casts the float32 product back; no autocast; measured with
        ``peak_measure.backward_ledger``): ``q * √scale`` (named until the C++ function returns) and
        ``kᵀ * √scale`` (a temporary of the product), each laid out as its input (``MulBackward1``: the gradient in
        the incoming one's layout); ``matmul`` (the reshapes' copies kept by ``BmmBackward0``); ``+ mask``
        (``AddBackward0``: the mask's gradient summed to its [1, A, L, L] shape); ``_safe_softmax`` (keeps its
        output); ``matmul`` by V. Anything else: :meth:`sdpa_math` (not modelled). ``cached``: the mask is a leaf
        needing a gradient (a reentrant block's argument in its recomputation), whose bf16 copy autocast caches to
        the region's end (:attr:`cached`) instead of dropping it as SDPA returns."""
        origin = q.itemsize
        if self.lower is not None and mask is not None and q.itemsize == k.itemsize == v.itemsize == self.lower \
                and mask.itemsize == 4 and self.lower == 2:
            # under autocast (T5's bf16 projections, its float32 bias): SDPA casts the mask to bf16 first (a copy,
            # ToCopyBackward0, a temporary of the call), then runs the math path with autocast off
            mark = self.scope()
            with self._autocast_call():
                mask = self.lowered(mask)
            if cached:
                self.cached.add(mask.storage)
            lower, self.lower = self.lower, None
            try:
                out = self.sdpa_math_replayed(q, k, v, mask)
            finally:
                self.lower = lower
            return self.end_scope(mark, out)
        if self.lower is not None or origin not in (2, 4) or not q.shape[-1] == k.shape[-1] == v.shape[-1] or (
                mask is not None and mask.itemsize != origin):
            return self.sdpa_math(q, k, v, mask)
        return self._sdpa_math_body(q, k, v, mask)

    def _sdpa_math_body(self, q: T, k: T, v: T, mask: T | None = None) -> T:
        """``_scaled_dot_product_attention_math`` itself, autocast off (:meth:`sdpa_math_replayed`'s nodes; V may be
        narrower than Q and K: :meth:`_sdpa_math_unmasked`)."""
        origin = q.itemsize
        mark = self.scope()  # _scaled_dot_product_attention_math: its locals go as it returns
        if origin != 4:  # a bf16 model's q, k, v computed in float32 (query_acc, key_acc, value_acc: locals)
            q, k, v = self.to_dtype(q, 4), self.to_dtype(k, 4), self.to_dtype(v, 4)
        model, self.itemsize = self.itemsize, 4  # every product, sum and softmax below float32, whatever the model's
        try:
            scaled_q = self.scalar(q)
            scaled_k = self.scalar(self.transpose(k, 2, 3))
            scores = self.bmm(scaled_q, scaled_k)
            self.release(scaled_k)
            if mask is not None:
                scores = self.rebind(scores, self._math_mask_add(scores, mask))
            probs = self.rebind(scores, self.made_by(self.keep_output(scores), "aten._safe_softmax"))
            if origin != 4:  # the second output, attn.to(origin): made before the product, gone with the tuple
                self.fresh(probs.shape, "aten._to_copy", origin)
            out = self.bmm(probs, v)
        finally:
            self.itemsize = model
        if origin != 4:  # .to(origin): the float32 product a temporary
            out = self.rebind(out, self.to_dtype(out, origin))
        return self.end_scope(mark, out)

    def sdpa_split_by_reentrant(self, q: T, k: T, v: T, mask: T, argument: bool = False) -> T:
        """SDPA under reentrant checkpointing where the mask needs a gradient in the recomputation only (T5's trained
        position bias): the forward, without a graph, ran the flash kernel; ``CheckpointFunction``'s recomputation,
        with one, the math path. One recording holds both: the math path (:meth:`sdpa_math_replayed`, its nodes the
        block's) is made only by the recomputation (:attr:`recompute_only`), then ``transpose(1, 2).contiguous()``'s
        copy, which the forward's flash kernel made instead as its output (laid out [B, L, A, d]: no copy there; the
        same bytes, the model's dtype in both), then the kernel's float32 logsumexp [B, A, L] (and under autocast,
        before its output, its bf16 copy of the float32 mask), made only by the forward (:attr:`forward_only`) and
        gone as the kernel returns. Where the math path's output transposed is already contiguous (one position or
        one head: no copy), the kernel's output is a storage of the forward's own, made before the logsumexp, that
        dies with the math path's output (:attr:`hangs_on`; measured, L = 1 and one head). Returns the context
        [B, L, A, d], as ``sdpa_attention_forward`` does.

        ``argument``: the mask is the block's positional argument itself (a later T5 block's bias with one position or
        one head, which ``.contiguous()`` does not copy): the forward's mask is then the checkpoint's output needing a
        gradient, so even without a graph SDPA runs its math path there (measured: its products, no flash kernel),
        replayed by :meth:`_sdpa_math_twice`. Under autocast the forward casts that mask to bf16 (a copy needing no
        gradient: the flash kernel, as above), but in the recomputation the mask is a leaf needing a gradient, whose
        bf16 copy autocast caches until the recomputation's autocast region exits (measured: 22 bytes more there)."""
        if argument and self.lower is None:
            return self._sdpa_math_twice(q, k, v, mask)
        first = self._next
        out = self.sdpa_math_replayed(q, k, v, mask, cached=argument)
        self.recompute_only.update(range(first + 1, self._next + 1))
        copy: T | None = None
        if self.lower is not None and mask.itemsize != self.lower:
            self._begin()
            self._labelled("scaled_dot_product_attention", "aten._to_copy")
            copy = self.new(mask.shape, False, self.lower)
            self.forward_only.add(copy.storage)
        context = self.rebind(out, self.contiguous(self.transpose(out, 1, 2)))
        self._begin()
        self._labelled("scaled_dot_product_attention", "aten._scaled_dot_product_flash_attention_for_cpu")
        if context.storage == out.storage:  # no copy: the kernel's output, the forward's only
            kernel = self.new(context.shape, False, context.itemsize)
            self.forward_only.add(kernel.storage)
            self._die(kernel.storage, kernel.storage)
            self.hangs_on[kernel.storage] = (out.storage, False)
        lse = self.new((q.shape[0], q.shape[1], q.shape[2]), False, 4)
        self.forward_only.add(lse.storage)
        for t in (lse, *([copy] if copy is not None else [])):
            self._die(t.storage, lse.storage)
        return context

    def _sdpa_math_twice(self, q: T, k: T, v: T, mask: T) -> T:
        """:meth:`sdpa_split_by_reentrant` where the mask is the block's argument itself (one head or one position):
        the forward, without a graph, runs SDPA's math path too (the mask needs a gradient: no flash kernel), its
        products each gone as the next is made (:attr:`forward_only`), then the recomputation's, with a graph
        (:attr:`recompute_only`). ``transpose(1, 2).contiguous()`` copies nothing in either: the forward's output,
        the context the block goes on with, dies with the recomputation's (:attr:`hangs_on`), which this returns."""
        first = self._next  # no graph: the same tensors as needing none
        fq, fk, fv, fm = (T(t.shape, t.strides, t.storage, False, t.itemsize) for t in (q, k, v, mask))
        ahead = self.sdpa_math_replayed(fq, fk, fv, fm)
        self.forward_only.update(range(first + 1, self._next + 1))
        middle = self._next
        out = self.sdpa_math_replayed(q, k, v, mask)
        self.recompute_only.update(range(middle + 1, self._next + 1))
        context = self.rebind(out, self.contiguous(self.transpose(out, 1, 2)))
        if context.storage != out.storage or ahead.storage == out.storage:
            self.fail("reentrant checkpointing: SDPA's mask the block's argument itself")
            return context
        self._die(ahead.storage, ahead.storage)
        self.hangs_on[ahead.storage] = (out.storage, False)
        return context

    def _math_mask_add(self, scores: T, mask: T) -> T:
        """SDPA's math path's ``attn + mask``: float32 scores, the mask in the model's dtype (bf16: the sum float32);
        ``AddBackward0`` hands the gradient on, ``validate_outputs`` sums it to the mask's shape, then (bf16) casts
        it to the mask's dtype, the float32 sum freed (measured with a dispatch log)."""
        if mask.itemsize == scores.itemsize:
            return self.add(scores, mask)
        self._begin()
        self._labelled("add", "aten.add")
        out = self._like(scores, (scores.grad or mask.grad) and self.grad_mode, scores.itemsize)
        if not out.grad:
            return out
        shape, size = mask.shape, mask.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            first = bw.alias(g, g.shape, g.strides) if scores.grad else None
            if not mask.grad:
                return [first, None]
            summed = bw.alloc(shape, g.itemsize, "aten.sum") if tuple(shape) != tuple(g.shape) else None
            cast = bw.alloc(shape, size, "aten._to_copy")
            if summed is not None:
                bw.drop(summed.storage)
            return [first, cast]
        return self._node("AddBackward0", [self._edge(scores), self._edge(mask)], run, out)
    # -- Nyströmformer's attention (issue 32; facts measured with tests/crosscheck/peak_measure.backward_ledger;
    #    its ``permute`` is T5's, above)

    def sum_dim(self, t: T, dim: int) -> T:
        """``torch.sum(t, dim)``: ``SumBackward1`` hands on ``grad.unsqueeze(dim).expand(sizes)``, a view."""
        self._begin()
        self._labelled("sum", "aten.sum")
        out = Ops.sum_dim(self, t, dim)
        if not out.grad:
            return out
        shape, d = t.shape, dim % len(t.shape)

        def run(bw: Backward, g: T) -> list[T | None]:
            strides = list(g.strides)
            strides.insert(d, 0)
            return [bw.alias(g, shape, tuple(strides))]
        return self._node("SumBackward1", [self._edge(t)], run, out, [])

    def mean_dim(self, t: T, dim: int) -> T:
        """``t.mean(dim)``: ``MeanBackward1`` allocates ``grad.expand(sizes) / n``, a new tensor of ``t``'s shape."""
        self._begin()
        self._labelled("mean", "aten.mean")
        out = Ops.mean_dim(self, t, dim)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize
        return self._node("MeanBackward1", [self._edge(t)], lambda bw, g: [bw.alloc(shape, size, "aten.div")], out, [])

    def max_all(self, t: T) -> T:
        """``torch.max(t)``: ``MaxBackward1`` keeps the input and the result; its backward
        (``evenly_distribute_backward``, the path a ``TorchDispatchMode`` takes) makes ``input.isnan()``,
        ``value.isnan()``, their ``logical_and``, ``input == value`` (bool, ``logical_or_`` in place), ``mask.sum()``
        (int64), ``grad / that`` and the gradient ``mask * ...``, the six temporaries freed as it returns."""
        self._begin()
        self._labelled("max", "aten.max")
        out = Ops.max_all(self, t)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            temps = [bw.alloc(shape, 1, "aten.isnan"), bw.alloc((), 1, "aten.isnan"),
                     bw.alloc(shape, 1, "aten.logical_and"), bw.alloc(shape, 1, "aten.eq"),
                     bw.alloc((), 8, "aten.sum"), bw.alloc((), size, "aten.div")]
            grad = bw.alloc(shape, size, "aten.mul")
            for temp in temps:
                bw.drop(temp.storage)
            return [grad]
        return self._node("MaxBackward1", [self._edge(t)], run, out)

    def reciprocal(self, t: T) -> T:
        """``reciprocal`` (Python's ``1 / t``): ``ReciprocalBackward0`` keeps the result; its backward
        ``-grad * (result * result)`` makes three tensors of ``t``'s shape, two of them temporaries."""
        self._begin()
        self._labelled("reciprocal", "aten.reciprocal")
        out = self.new(t.shape, t.grad, t.itemsize)
        if not out.grad:
            return out
        self.save(out)
        shape, size = t.shape, t.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            temps = [bw.alloc(shape, size, "aten.neg"), bw.alloc(shape, size, "aten.mul")]
            grad = bw.alloc(shape, size, "aten.mul")
            for temp in temps:
                bw.drop(temp.storage)
            return [grad]
        return self._node("ReciprocalBackward0", [self._edge(t)], run, out)

    def scalar_times(self, s: T, t: T) -> T:
        """``s * t``, ``s`` 0-dim, laid out as ``t``: ``MulBackward0`` keeps each factor for the other's gradient;
        its backward allocates ``grad * t`` (``s``'s, summed to 0-dim by ``validate_outputs``) and ``grad * s``."""
        self._begin()
        self._labelled("mul", "aten.mul")
        out = self._laid_out(t, s.grad or t.grad, "aten.mul")
        if not out.grad:
            return out
        # Under autocast a float32 0-dim factor times a bf16 tensor (NeoMME's ``lambdas[0] * x``): a 0-dim tensor does
        # not promote, so the product is bf16, and validate_outputs casts the factor's summed gradient to float32.
        widened = self.lower is not None and not s.shape and s.itemsize > t.itemsize
        if s.shape or (s.itemsize != t.itemsize and not widened):
            self.fail("a product by a tensor that is not a 0-dim scalar of the same dtype")
        if s.grad:
            self.save(t)
        if t.grad:
            self.save(s)
        shape, size, s_size = t.shape, t.itemsize, s.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            full = bw.alloc(shape, size, "aten.mul") if s.grad else None
            gt = bw.alloc(shape, size, "aten.mul", _dense_strides(g.shape, g.strides)) if t.grad else None
            gs = None
            if full is not None:
                gs = bw.alloc((), size, "aten.sum")
                bw.drop(full.storage)
                if s_size != size:  # validate_outputs: sum_to, then the cast to the factor's dtype
                    low, gs = gs, bw.alloc((), s_size, "aten._to_copy")
                    bw.drop(low.storage)
            return [gs, gt]
        return self._node("MulBackward0", [self._edge(s), self._edge(t)], run, out)

    def sub_from(self, c: T, t: T) -> T:
        """``c - t`` with ``c`` a constant broadcast to ``t``'s shape: ``SubBackward0`` keeps nothing and allocates
        ``-grad`` for ``t``."""
        self._begin()
        self._labelled("sub", "aten.sub")
        promoted = self.lower is not None and c.itemsize > t.itemsize  # autocast: float32 eye - bf16 → float32
        out = self.new(t.shape, t.grad, c.itemsize if promoted else t.itemsize)
        if not out.grad:
            return out
        if c.grad or (c.itemsize != t.itemsize and not promoted) or not is_contiguous(t):
            self.fail("a subtraction not of a constant from a dense tensor")
        shape, size = t.shape, t.itemsize
        if promoted:  # -grad in float32, then validate_outputs' cast to t's bf16 (the float32 one freed at once)
            def run(bw: Backward, g: T) -> list[T | None]:
                wide = bw.alloc(shape, g.itemsize, "aten.neg")
                narrow = bw.alloc(shape, size, "aten._to_copy")
                bw.drop(wide.storage)
                return [None, narrow]
            return self._node("SubBackward0", [None, self._edge(t)], run, out, [])
        return self._node("SubBackward0", [None, self._edge(t)],
                          lambda bw, g: [None, bw.alloc(shape, size, "aten.neg")], out, [])

    def conv_heads(self, module: str, x: T, w: T | None = None) -> T:
        """The values' depthwise convolution: ``ConvolutionBackward0`` keeps the input (and the weight); its backward
        allocates the input's gradient (contiguous), then the weight's. Under autocast the weight's copy is made
        here (``w`` is for :class:`~.modules.Sim`'s callers; none passes one to the lifetime simulator)."""
        if w is not None:
            self.fail("a weight's copy made by the caller")
        self._begin()
        self._aten = "aten.convolution"
        name = module + ".weight"
        w_grad = self.param_trains(name)
        w = None
        mark = self._next
        if self.lower is not None:  # autocast: the weight's copy, then the input's (as conv1d_length's casts)
            with self._autocast_call(), self._in(module):
                w = self.weight_copy(self.storage_name(name), self.shapes[name], w_grad)
                x = self.lowered(x)
            self._aten = "aten.convolution"
        out = super().conv_heads(module, x, w)
        for s in range(mark + 1, self._next):  # the input's and a frozen weight's copies: kept only if saved
            if s not in self.cached and s != out.storage:
                self._die(s, self._next)
        if not out.grad:
            return out
        shape, size, wshape = x.shape, x.itemsize, self.shapes[name]

        def run(bw: Backward, g: T) -> list[T | None]:
            gx = bw.alloc(shape, size, "aten.convolution_backward") if x.grad else None
            gw = bw.alloc(wshape, size, "aten.convolution_backward") if w_grad else None
            return [gx, gw]
        with self._in(module):
            nexts = [self._edge(x), self._accumulator(name) if w_grad else None]
            if w is not None:  # autocast: the weight's gradient (bf16) to its copy's ToCopyBackward0
                nexts[1] = self._edge(w) if w_grad else None
            return self._node("ConvolutionBackward0", nexts, run, out)

    # -- YOSO's attention (issue 32; facts measured with tests/crosscheck/peak_measure.backward_ledger)

    def yoso_cumulation(self, mask: T, q: T, k: T, v: T, grad_strides: Sequence[int] | None = None) -> T:
        """``YosoCumulation.apply`` (``use_expectation``), a custom ``autograd.Function``. Its forward runs without
        a graph: ``matmul(Q, Kᵀ)``, ``acos``, ``/ π``, ``1 -``, ``** hash_code_len`` (each [BA, L, L] result freeing the
        previous one), ``* mask[:, :, None] * mask[:, None, :]`` (the power, named ``expectation``, freed with the
        first product once the second is made), then ``matmul(E, V)``;
        ``ctx.save_for_backward`` keeps the int32 mask, E, Q, K and V. Its backward (one node): ``grad``
        made contiguous (a copy only if it is not: ``grad_strides`` is the program's word for how it arrives, since
        the engine's sum of two gradients is contiguous where PyTorch's keeps their layout), ``matmul(grad, Vᵀ)``
        and ``* E`` (the product freed),
        ``(hash_code_len / 2) * K`` and the product by it (Q's gradient; the scaled K freed), the same for K's,
        ``matmul(Eᵀ, grad)`` (V's), the weighted E freed as it returns; a gradient for an input that needs none is
        made anyway and dropped by the engine."""
        self._begin()
        if self.lower is not None and any(t.itemsize != self.lower for t in (q, k, v)):
            self.fail("YOSO's cumulation under autocast on float32 inputs")  # matmul's copies: not measured
        ba, n, d = q.shape
        flops = 2 * ba * n * d * n
        grad = bool((q.grad or k.grad or v.grad) and self.grad_mode)
        first, second = self.record("bmm", flops), self.record("bmm", flops)  # Q Kᵀ, E V (as Ops.yoso_cumulation)
        if grad:
            first.backward += 2 * flops
            second.backward += 2 * flops
        size = q.itemsize
        mark = self.scope()  # YosoCumulation.forward
        self._labelled("matmul", "aten.bmm")
        e = self.new((ba, n, n), False, size)
        for aten in ("aten.acos", "aten.div", "aten.rsub", "aten.pow"):
            self._labelled(aten.replace("aten.", ""), aten)
            nxt = self.new((ba, n, n), False, size)
            self.release(e)  # the expression's temporary
            e = nxt
        self._labelled("mul", "aten.mul")
        once = self.new((ba, n, n), False, size)  # expectation * query_mask[:, :, None]
        masked = self.new((ba, n, n), False, size)  # * key_mask[:, None, :]
        self.release(once, e)  # the temporary, and the name's old value as the line rebinds it
        e = masked
        self._labelled("matmul", "aten.bmm")
        out = self.new((ba, n, d), grad, size)
        if not grad:
            return self.end_scope(mark, out)
        for t in (mask, e, q, k, v):
            self.save(t)
        square, kq = (ba, n, n), (ba, n, d)
        k_strides, q_strides = _dense_strides(k.shape, k.strides), _dense_strides(q.shape, q.strides)

        def run(bw: Backward, g: T) -> list[T | None]:
            strided = not is_contiguous(g if grad_strides is None else T(g.shape, tuple(grad_strides), g.storage, True,
                                                                           g.itemsize))
            copy = bw.alloc(g.shape, g.itemsize, "aten.clone") if strided else None  # to_contiguous(grad)
            product = bw.alloc(square, size, "aten.bmm")  # matmul(grad, value.transpose(-1, -2))
            weighted = bw.alloc(square, size, "aten.mul")  # * expectation
            bw.drop(product.storage)
            scaled = bw.alloc(kq, size, "aten.mul", k_strides)  # (hash_code_len / 2) * key
            gq = bw.alloc(kq, size, "aten.bmm")
            bw.drop(scaled.storage)
            scaled = bw.alloc(kq, size, "aten.mul", q_strides)  # (hash_code_len / 2) * query
            gk = bw.alloc(kq, size, "aten.bmm")
            bw.drop(scaled.storage)
            gv = bw.alloc(kq, size, "aten.bmm")  # matmul(expectation.transpose(-1, -2), grad)
            bw.drop(weighted.storage)  # weighted_exp, a local of the backward
            if copy is not None:
                bw.drop(copy.storage)
            return [gq, gk, gv]
        self._labelled("YosoCumulation")
        out = self._node("YosoCumulationBackward", [self._edge(q), self._edge(k), self._edge(v)], run, out)
        return self.end_scope(mark, out)

    # -- FNet's Fourier mixing (issue 32; facts measured with tests/crosscheck/peak_measure.backward_ledger)

    def fft_real(self, t: T) -> T:
        """``torch.fft.fftn(t, dim=(1, 2)).real`` node by node (measured): ``_to_copy`` to complex64
        (``ToCopyBackward0``: the gradient's real part, a strided view of the complex gradient; the copy itself dropped
        as ``fftn`` returns, after ``_fft_c2c`` made its output), ``_fft_c2c`` (``FftC2CBackward0``: a new complex
        tensor), ``view_as_real`` (``ViewAsRealBackward0``: ``view_as_complex``, a view) and ``select(-1, 0)``
        (``SelectBackward0``: ``select_backward``'s zeros [..., 2] in ``t``'s dtype). None saves anything; the
        real view keeps the complex output (twice ``t``'s bytes) alive as long as a name holds it.

        Under autocast (``fft_fftn`` on CPU's float32 list, measured) a bf16 input is first cast to float32 (a copy,
        ``ToCopyBackward0``: the float32 gradient cast back to bf16, a new tensor), a temporary of the call dropped
        with the complex copy once ``_fft_c2c`` made its output."""
        wide = None
        if self.lower is not None and t.itemsize < 4:
            wide = t = self._cast(t, 4)
        self._begin()
        self._labelled("fftn", "aten._to_copy")
        shape, size, real = t.shape, 2 * t.itemsize, t.itemsize
        copy = self.new(shape, t.grad, size)
        if copy.grad:
            def real_part(bw: Backward, g: T) -> list[T | None]:
                bw.hold(g.storage)  # ``grad.real``: a view of the complex gradient, every other float
                return [T(shape, tuple(2 * s for s in g.strides), g.storage, True, real)]
            copy = self._node("ToCopyBackward0", [self._edge(t)], real_part, copy, [])
        self._aten = "aten._fft_c2c"
        out = self.new(shape, t.grad, size)
        self.release(copy)
        if wide is not None:
            self.release(wide)
        if out.grad:
            out = self._node("FftC2CBackward0", [self._edge(copy)],
                             lambda bw, g: [bw.alloc(shape, size, "aten._fft_c2c")], out, [])
        view = T(shape + (2,), tuple(2 * s for s in out.strides) + (1,), out.storage, out.grad, real)
        result = T(shape, tuple(2 * s for s in out.strides), out.storage, out.grad, real)
        if not out.grad:
            return result

        def as_complex(bw: Backward, g: T) -> list[T | None]:
            bw.hold(g.storage)
            return [T(shape, contiguous_strides(shape), g.storage, True, size)]
        view = self._node("ViewAsRealBackward0", [self._edge(out)], as_complex, view, [])
        return self._node("SelectBackward0", [self._edge(view)],
                          lambda bw, g: [bw.alloc(shape + (2,), real, "aten.select_backward")], result, [])
    # -- MobileBERT's operations (issue 32; facts measured with tests/crosscheck/peak_measure.backward_ledger)

    def scale_shift(self, x: T, weight: str, bias: str) -> T:
        """``NoNorm``: ``x * weight + bias``. ``MulBackward0`` keeps ``x`` when the weight trains (the weight, a
        parameter, for ``x``'s gradient); its backward allocates ``x``'s gradient, then ``grad * x`` of ``x``'s
        shape, which ``validate_outputs`` sums to the weight's [W] (a new tensor, the full one then freed). The
        product is the expression's temporary, gone once the sum is made; ``AddBackward0`` hands the gradient on
        and sums the bias's (measured: 2·|x| + W numbers in the product's node, |x| freed in it)."""
        with self._in(weight.rsplit(".", 1)[0]):  # the NoNorm module: what the page names a peak there by
            return self._no_norm(x, weight, bias)

    def _no_norm(self, x: T, weight: str, bias: str) -> T:
        self._begin()
        w_trains, b_trains = self.param_trains(weight), self.param_trains(bias)
        width, shape, size = self.shapes[weight], x.shape, x.itemsize
        # Under autocast (mul and add are on no list) a bf16 input times the float32 weight promotes: the product,
        # the sum and both gradients are float32, and validate_outputs casts x's back to bf16 (measured).
        wide = max(size, self.itemsize) if self.lower is not None else size
        self._labelled("mul", "aten.mul")
        if w_trains and self.grad_mode:
            self.save(x)
        elif x.grad and self.grad_mode:
            self._stop = self._next  # the weight packed: a recomputation stopping here made everything before
        scaled = self.new(shape, x.grad or w_trains, wide)
        if scaled.grad:
            x_grad = x.grad

            def mul_backward(bw: Backward, g: T) -> list[T | None]:
                gx = bw.alloc(shape, wide, "aten.mul") if x_grad else None
                gw = None
                if w_trains:
                    full = bw.alloc(shape, wide, "aten.mul")
                    bw.applied()  # validate_outputs sums it to [W] after apply has returned
                    if gx is not None and wide != size:  # validate_outputs: x's gradient cast first (output 0)
                        narrow = bw.alloc(shape, size, "aten._to_copy")
                        bw.drop(gx.storage)
                        gx = narrow
                    gw = bw.alloc(width, wide, "aten.sum")
                    bw.drop(full.storage)
                elif gx is not None and wide != size:
                    narrow = bw.alloc(shape, size, "aten._to_copy")
                    bw.drop(gx.storage)
                    gx = narrow
                return [gx, gw]
            packs = [PARAMETER_PACK] if not w_trains and x_grad and self._block is not None else None
            scaled = self._node("MulBackward0", [self._edge(x), self._accumulator(weight) if w_trains else None],
                                mul_backward, scaled, packs)
        self._labelled("add", "aten.add")
        out = self.new(shape, scaled.grad or b_trains, wide)
        if out.grad:
            through = scaled.grad

            def add_backward(bw: Backward, g: T) -> list[T | None]:
                return [bw.alias(g, g.shape, g.strides) if through else None,
                        bw.alloc(width, g.itemsize, "aten.sum") if b_trains else None]
            out = self._node("AddBackward0", [self._edge(scaled), self._accumulator(bias) if b_trains else None],
                             add_backward, out, [])
        self.release(scaled)
        return out

    def trigram_pad(self, t: T) -> T:
        """``pad(t[:, 1:])`` (or ``t[:, :-1]``) to ``t``'s shape: ``SliceBackward0`` allocates a zero tensor of
        ``t``'s shape (``slice_backward``), ``ConstantPadNdBackward0`` a new [B, L - 1, E] one (measured)."""
        self._begin()
        n = t.shape[1]
        part = self.narrow(t, 1, max(n - 1, 0))
        if part.grad:
            full, size = t.shape, t.itemsize
            part = self._node("SliceBackward0", [self._edge(t)],
                              lambda bw, g: [bw.alloc(full, size, "aten.slice_backward")], part, [])
        self._labelled("pad", "aten.constant_pad_nd")
        out = self.new(t.shape, part.grad, t.itemsize)
        if not out.grad:
            return out
        cut, size = part.shape, t.itemsize
        return self._node("ConstantPadNdBackward0", [self._edge(part)],
                          lambda bw, g: [bw.alloc(cut, size, "aten.constant_pad_nd")], out, [])


    # -- SqueezeBERT's and ConvBERT's convolutions (issue 32; measured with peak_measure.backward_ledger)

    def _conv1x1(self, x: T, in_per_group: int, out_c: int, w_grad: bool, b_grad: bool,
                 itemsize: int | None = None, kernel: int = 1, weight: str | None = None, w: T | None = None) -> T:
        """``ConvolutionBackward0`` of a stride-1 ``conv1d`` keeping the length (1×1 or odd kernels, grouped or
        not): it keeps the input whenever any of input, weight, bias needs a gradient; ``convolution_backward``
        returns the three gradients at once (new tensors of their shapes, one operation). ``weight``: a LoRA
        factor's name (``…lora_A``), whose ``.weight`` gets the gradient (no bias). Under autocast the copies are
        made here, bias, weight, input (``w`` is for :class:`~.ops.Ops`' callers; none passes one here)."""
        if w is not None:
            self.fail("a weight's copy made by the caller")
        self._begin()
        self._labelled("convolution", "aten.convolution")
        name = (weight or self.module) + ".weight"
        bias = self.module + ".bias" if weight is None else ""
        shape = (out_c, in_per_group, kernel)
        w = bias_copy = None
        mark = self._next
        if self.lower is not None:  # autocast: bias, weight, input cast in that order (as conv1d_length's)
            with self._autocast_call():
                if bias in self.shapes:
                    bias_copy = self.weight_copy(self.storage_name(bias), (out_c,), b_grad)
                w = self.weight_copy(weight or self.module + ".weight", shape, w_grad)  # a LoRA factor's: cached
                x = self.lowered(x)
            self._labelled("convolution", "aten.convolution")
        out = super()._conv1x1(x, in_per_group, out_c, w_grad, b_grad, itemsize, kernel, weight, w)
        for s in range(mark + 1, self._next):  # the input's and a frozen parameter's copies: kept only if saved
            if s not in self.cached and s != out.storage:
                self._die(s, self._next)
        if not out.grad:
            return out
        size = out.itemsize
        # In bf16 (oneDNN's kernel) the bias's gradient comes with the weight's: a frozen weight's is made all the same
        # and dropped as the node returns (measured under autocast: a LoRA plan's frozen conv with its bias trained).
        unwanted = size == 2 and b_grad and not w_grad

        def run(bw: Backward, g: T) -> list[T | None]:
            op = "aten.convolution_backward"
            gx = bw.alloc(x.shape, x.itemsize, op) if x.grad else None
            gw = bw.alloc(shape, size, op) if w_grad or unwanted else None
            gb = bw.alloc((out_c,), size, op) if b_grad else None
            if unwanted and gw is not None:
                bw.drop(gw.storage)
                gw = None
            return [gx, gw, gb]
        nexts = [self._edge(x), self._accumulator(name) if w_grad else None,
                 self._accumulator(bias) if b_grad else None]
        if w is not None:  # autocast: the bf16 gradients to the copies' ToCopyBackward0
            nexts = [self._edge(x), self._edge(w) if w_grad else None,
                     self._edge(bias_copy) if b_grad and bias_copy is not None else None]
        return self._node("ConvolutionBackward0", nexts, run, out)

    def conv1x1(self, module: str, x: T) -> T:
        """peft's LoRA ``Conv1d`` as its forward runs (as :meth:`linear`'s): ``result = base_layer(x)``, ``x`` cast
        to the adapters' float32 in a bf16 model, ``result + lora_B(lora_A(x)) * scaling``, ``.to(dtype)``."""
        r = self.lora.get(module)
        if r is None:
            return super().conv1x1(module, x)
        mark = self.scope()
        with self._in(module):
            out_c, in_per_group = self.shapes[module + ".weight"][:2]
            w_trains = self.param_trains(module + ".weight")
            b_trains = module + ".bias" in self.shapes and self.param_trains(module + ".bias")
            base = self._conv1x1(x, in_per_group, out_c, w_trains, b_trains)
            self.used.add(module + ADAPTED)
            groups = x.shape[1] // in_per_group
            wide = x if x.itemsize == ADAPTER_BYTES else self._cast(x, ADAPTER_BYTES)
            a = self._conv1x1(wide, x.shape[1], r, True, False, ADAPTER_BYTES, weight=module + ".lora_A")
            b = self._conv1x1(a, r // groups, out_c, True, False, ADAPTER_BYTES, weight=module + ".lora_B")
            self.release(a)
            if wide is not x:
                self.release(wide)
            scaled = self.pointwise(b)
            self.release(b)
            self._begin()
            self._labelled("add", "aten.add")
            out = self.new(base.shape, True, max(base.itemsize, scaled.itemsize))
            out = self._node("AddBackward0", [self._edge(base), self._edge(scaled)], self._add_backward(base, scaled),
                             out)
            self.release(base, scaled)
            if out.itemsize != base.itemsize:
                out = self.rebind(out, self._cast(out, base.itemsize))
        return self.end_scope(mark, out)


    # -- ConvBERT's span-based dynamic convolution and grouped feed-forward (issue 32; backward_ledger measured)

    def softmax(self, t: T) -> T:
        """``torch.softmax`` in the input's dtype: ``SoftmaxBackward0`` keeps the output and allocates the gradient
        (``_softmax_backward_data``), whatever the rank."""
        self._op_name = "aten._softmax_backward_data"
        try:
            return self.keep_output(t)
        finally:
            self._op_name = None

    def unfold_windows(self, t: T, kernel: int) -> T:
        """``unfold`` to [B, C·k, L] (``im2col``, nothing kept). ``Im2ColBackward0``'s ``col2im`` returns a [B, C, L,
        1] gradient whose storage holds as many bytes as the incoming [B, C·k, L] one (measured for several B, C,
        L, k, L = 1 too)."""
        self._begin()
        self._labelled("unfold", "aten.im2col")
        out = super().unfold_windows(t, kernel)
        if not out.grad:
            return out
        shape, wide, size = t.shape, out.shape, t.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            made = bw.alloc(wide, size, "aten.col2im")
            return [T(shape, contiguous_strides(shape), made.storage, True, size)]
        return self._node("Im2ColBackward0", [self._edge(t)], run, out, [])

    def plus_param(self, t: T, name: str) -> T:
        """``t += parameter`` in place (SeparableConv1D's ``x += self.bias``, [C, 1] broadcast over L): autograd
        rebases ``t`` on ``AddBackward0``, which hands the gradient on and sums the parameter's (a new tensor)."""
        self._begin()
        out = super().plus_param(t, name)
        if not out.grad:
            return out
        trains, width, through = bool(self.trains.get(name)), self.shapes[name], t.grad
        wide = self.itemsize  # the float32 parameter's gradient: under autocast t is bf16 (measured, ConvBERT)

        def run(bw: Backward, g: T) -> list[T | None]:
            gb = bw.alloc(width, g.itemsize, "aten.sum") if trains else None
            if gb is not None and g.itemsize != wide:  # validate_outputs: summed to [C, 1] in bf16, then cast
                cast = bw.alloc(width, wide, "aten._to_copy")
                bw.drop(gb.storage)
                gb = cast
            return [bw.alias(g, g.shape, g.strides) if through else None, gb]
        return self._node("AddBackward0", [self._edge(t), self._accumulator(name) if trains else None], run, out, [])

    def grouped_linear(self, module: str, x: T) -> T:
        """ConvBERT's ``GroupedLinearLayer`` as its forward runs: ``reshape`` [B·L, G, in/G] and ``permute`` (views),
        ``matmul`` by the weight [G, in/G, out/G] (one ``bmm``: ``BmmBackward0`` keeps both), ``permute`` back and
        ``reshape`` to [B, L, out] (a copy, the ``bmm``'s output then dropped), ``+ self.bias`` (a new tensor, the
        copy dropped; ``AddBackward0`` sums the bias's gradient)."""
        if module in self.lora:
            self.fail("a grouped linear under LoRA")
            return super().grouped_linear(module, x)
        mark = self.scope()
        with self._in(module):
            groups, in_g, out_g = self.shapes[module + ".weight"]
            b, n = x.shape[0], x.shape[1]
            split = self.transpose(self.reshape(x, (-1, groups, in_g)), 0, 1)
            if self.lower is not None:  # autocast's matmul casts the weight, then the input (measured): temporaries
                made = self._next  # of the call unless the bmm saves them (a trained weight's copy is cached)
                name = module + ".weight"
                with self._autocast_call():
                    weight = self.weight_copy(self.storage_name(name), (groups, in_g, out_g), self.param_trains(name))
                    split = self.lowered(split)
                assert weight is not None
            else:
                weight = self.parameter(module + ".weight", (groups, in_g, out_g))
            product = self.product(split, weight, 2 * groups * b * n * in_g * out_g, (groups, b * n, out_g))
            if self.lower is not None:
                for sid in range(made + 1, self._next):
                    if sid not in self.cached and sid != product.storage:
                        self._die(sid, self._next)
            joined = self.reshape(self.transpose(product, 0, 1), (b, n, groups * out_g))
            self.release(product)
            out = self.add_param(joined, module + ".bias")
            self.release(joined)
        return self.end_scope(mark, out)

    def linear_strided(self, module: str, x: T) -> T:
        """``at::linear`` of a 3-D input that is not contiguous, under ``LiveBytes``' dispatch mode: ``matmul``, then
        ``output + bias`` out of place (a mode makes ``isTensorSubclassLike`` true), the product dropped as
        ``linear`` returns. ``matmul`` folds the input to [B·L, in] (``reshape``: a copy unless its first two
        dimensions merge; ``mm``) when the weight needs a gradient or the fold costs no copy (``should_fold``);
        else it runs ``bmm`` on the input as it is and the weight expanded to [B, in, out] (a frozen weight: nothing
        saved but the parameter). A contiguous input takes the fused ``addmm`` path (:meth:`linear`)."""
        if len(x.shape) != 3 or is_contiguous(x) or module + ".bias" not in self.shapes:
            return self.linear(module, x)
        if module in self.lora and not self._lora_base:  # peft's Linear: the base layer's path, then the adapters
            self._strided_lora = True
            try:
                return self.linear(module, x)
            finally:
                self._strided_lora = False
        mark = self.scope()
        with self._in(module):
            info = self.linear_info(module)
            b, n, k = x.shape
            out_f = info.out_features
            w = bias_copy = None
            made = self._next
            if self.lower is not None:  # autocast's linear: bias, weight, input cast in that order (as _linear's)
                bias = module + ".bias"
                with self._autocast_call():
                    bias_copy = self.weight_copy(self.storage_name(bias), (out_f,), self.param_trains(bias))
                    w = self.weight_copy(self.storage_name(module + ".weight"), (out_f, k), info.weight_trains)
                    x = self.lowered(x)
            if info.weight_trains or x.strides[0] == x.strides[1] * x.shape[1]:
                flat = self.reshape(x, (-1, k))
                # no bias in this mm (its AddmmBackward0 node stands for MmBackward0: the same two gradients)
                product = self.mm(flat, info.weight_trains, flat.shape[0], k, out_f, (b, n, out_f),
                                  itemsize=self.lower, w=w)
                self.op_of[product.storage] = "aten.mm"
                if flat.storage != x.storage:
                    self.release(flat)
            else:
                weight = w if w is not None else self.parameter(module + ".weight", (out_f, k))
                expanded = T((b, k, out_f), (0, 1, k), weight.storage, False, weight.itemsize)
                product = self.product(x, expanded, 2 * b * n * k * out_f, (b, n, out_f))
            if bias_copy is not None:  # bf16 + the bias's bf16 copy: AddBackward0 sums its gradient to [out]
                out = self.add(product, bias_copy)
            else:
                out = self.add_param(product, module + ".bias")
            self.release(product)
            for sid in range(made + 1, self._next):  # the input's and a frozen parameter's copies
                if sid not in self.cached and sid != out.storage and self.lower is not None:
                    self._die(sid, self._next)
        return self.end_scope(mark, out)

    # -- DeBERTa (v1)'s operations (issue 32; each node as tests/crosscheck/peak_measure.backward_ledger measured it)

    def deberta_layer_norm(self, module: str, x: T) -> T:
        """``DebertaLayerNorm`` op by op (float32): ``mean`` (``MeanBackward1``: ``grad.expand / n``, a new tensor of
        x's shape), ``x - mean`` (``SubBackward0``: the gradient handed on to x, ``-grad`` summed to the mean's
        [.., 1] by ``validate_outputs``), ``pow(2)`` (keeps its base: ``pow``, ``* 2``, ``grad *``), ``mean``,
        a second ``x - mean`` (Python's left operand first), ``+ eps``, ``sqrt`` (keeps its result: ``2 * result``,
        ``grad /``), the division
        (``DivBackward0`` keeps both: the root's gradient ``-grad * ((a / b) / b)`` first, its four temporaries live
        at once, then ``grad / b``, then the root's summed to [.., 1]), then ``weight * normalized + bias``
        (:meth:`_no_norm`'s nodes). In bf16 ``hidden_states.float()`` is a copy (``ToCopyBackward0``), named
        until the quotient rebinds it, and ``.to(input_type)`` casts the quotient back (dropped then). The means are named until the function returns; each ``x - mean``, the power and
        the root are temporaries of their expressions (kept by their nodes). Under bf16 autocast (no op here on its
        lists) the same in the input's dtype (float32, or bf16 after a projection), the product with the float32
        weight promoted (:meth:`_no_norm`)."""
        mark = self.scope()
        with self._in(module):
            shape, rows, size = x.shape, x.shape[:-1] + (1,), x.itemsize
            wide = x if size == 4 else self.to_dtype(x, 4)  # ``hidden_states.float()``: named until the division
            x = wide

            def mean_backward(dims: Sequence[int]) -> Callable[[Backward, T], list[T | None]]:
                return lambda bw, g: [bw.alloc(dims, 4, "aten.div")]
            self._begin()
            self._labelled("mean", "aten.mean")
            mean = self.new(rows, x.grad, 4)
            if mean.grad:
                mean = self._node("MeanBackward1", [self._edge(x)], mean_backward(shape), mean, [])
            first = self._centred(x, mean)
            self._begin()
            self._labelled("pow", "aten.pow")
            power = self.new(shape, first.grad, 4)
            if power.grad:
                self.save(first)

                def pow_backward(bw: Backward, g: T) -> list[T | None]:
                    base, twice = bw.alloc(shape, 4, "aten.pow"), bw.alloc(shape, 4, "aten.mul")
                    out = bw.alloc(shape, 4, "aten.mul")
                    bw.drop(base.storage)
                    bw.drop(twice.storage)
                    return [out]
                power = self._node("PowBackward0", [self._edge(first)], pow_backward, power)
            self.release(first)
            self._begin()
            self._labelled("mean", "aten.mean")
            variance = self.new(rows, power.grad, 4)
            if variance.grad:
                variance = self._node("MeanBackward1", [self._edge(power)], mean_backward(shape), variance, [])
            self.release(power)
            second = self._centred(x, mean)  # the division's numerator, made before its denominator
            self._begin()
            self._labelled("add", "aten.add")
            shifted = self.new(rows, variance.grad, 4)
            if shifted.grad:
                shifted = self._node("AddBackward1", [self._edge(variance)],
                                     lambda bw, g: [bw.alias(g, g.shape, g.strides)], shifted, [])
            self._labelled("sqrt", "aten.sqrt")
            root = self.new(rows, shifted.grad, 4)
            if root.grad:
                self.save(root)

                def sqrt_backward(bw: Backward, g: T) -> list[T | None]:
                    twice = bw.alloc(rows, 4, "aten.mul")
                    out = bw.alloc(rows, 4, "aten.div")
                    bw.drop(twice.storage)
                    return [out]
                root = self._node("SqrtBackward0", [self._edge(shifted)], sqrt_backward, root)
            self.release(shifted)
            self._begin()
            self._labelled("div", "aten.div")
            normed = self.new(shape, second.grad or root.grad, 4)
            if normed.grad:
                self.save(second)
                self.save(root)

                def div_backward(bw: Backward, g: T) -> list[T | None]:
                    temps = [bw.alloc(shape, 4, op) for op in ("aten.div", "aten.div", "aten.neg")]
                    product = bw.alloc(shape, 4, "aten.mul")
                    for t in temps:
                        bw.drop(t.storage)
                    ga = bw.alloc(shape, 4, "aten.div")
                    bw.applied()
                    gb = bw.alloc(rows, 4, "aten.sum")
                    bw.drop(product.storage)
                    return [ga, gb]
                normed = self._node("DivBackward0", [self._edge(second), self._edge(root)], div_backward, normed)
            self.release(second, root)  # temporaries of the expression (kept by the division's node)
            narrow = normed
            if size != 4:
                self.release(wide)  # ``hidden_states`` rebound to the quotient
                narrow = self.to_dtype(normed, size)  # ``.to(input_type)``: the float32 quotient dropped
                self.release(normed)
            out = self._no_norm(narrow, module + ".weight", module + ".bias")
        return self.end_scope(mark, out)

    def int_layer_norm(self, module: str, x: T) -> T:
        """I-BERT's ``IntLayerNorm`` with quant_mode false, op by op in x's dtype (no float32 copy): ``mean``,
        ``y = x - mean`` (named until the return), ``mean(y ** 2)`` (the power a temporary ``pow`` keeps the base of),
        ``sqrt(eps + var)`` (the sum a temporary of the call; ``sqrt`` keeps its result), ``y / root`` (keeps both),
        then ``x * weight + bias`` (:meth:`_no_norm`'s nodes). :meth:`deberta_layer_norm`'s nodes with one centring:
        the same derivatives, each allocation in x's dtype (measured, fp32 and bf16)."""
        mark = self.scope()
        with self._in(module):
            shape, rows, size = x.shape, x.shape[:-1] + (1,), x.itemsize

            def mean_backward(bw: Backward, g: T) -> list[T | None]:
                return [bw.alloc(shape, size, "aten.div")]
            self._begin()
            self._labelled("mean", "aten.mean")
            mean = self.new(rows, x.grad, size)
            if mean.grad:
                mean = self._node("MeanBackward1", [self._edge(x)], mean_backward, mean, [])
            y = self._centred(x, mean, size)
            self._begin()
            self._labelled("pow", "aten.pow")
            power = self.new(shape, y.grad, size)
            if power.grad:
                self.save(y)

                def pow_backward(bw: Backward, g: T) -> list[T | None]:
                    base, twice = bw.alloc(shape, size, "aten.pow"), bw.alloc(shape, size, "aten.mul")
                    out = bw.alloc(shape, size, "aten.mul")
                    bw.drop(base.storage)
                    bw.drop(twice.storage)
                    return [out]
                power = self._node("PowBackward0", [self._edge(y)], pow_backward, power)
            self._begin()
            self._labelled("mean", "aten.mean")
            variance = self.new(rows, power.grad, size)
            if variance.grad:
                variance = self._node("MeanBackward1", [self._edge(power)], mean_backward, variance, [])
            self.release(power)
            self._begin()
            self._labelled("add", "aten.add")
            shifted = self.new(rows, variance.grad, size)
            if shifted.grad:
                shifted = self._node("AddBackward1", [self._edge(variance)],
                                     lambda bw, g: [bw.alias(g, g.shape, g.strides)], shifted, [])
            self._labelled("sqrt", "aten.sqrt")
            root = self.new(rows, shifted.grad, size)
            if root.grad:
                self.save(root)

                def sqrt_backward(bw: Backward, g: T) -> list[T | None]:
                    twice = bw.alloc(rows, size, "aten.mul")
                    out = bw.alloc(rows, size, "aten.div")
                    bw.drop(twice.storage)
                    return [out]
                root = self._node("SqrtBackward0", [self._edge(shifted)], sqrt_backward, root)
            self.release(shifted)
            self._begin()
            self._labelled("div", "aten.div")
            normed = self.new(shape, y.grad or root.grad, size)
            if normed.grad:
                self.save(y)
                self.save(root)

                def div_backward(bw: Backward, g: T) -> list[T | None]:
                    temps = [bw.alloc(shape, size, op) for op in ("aten.div", "aten.div", "aten.neg")]
                    product = bw.alloc(shape, size, "aten.mul")
                    for t in temps:
                        bw.drop(t.storage)
                    ga = bw.alloc(shape, size, "aten.div")
                    bw.applied()
                    gb = bw.alloc(rows, size, "aten.sum")
                    bw.drop(product.storage)
                    return [ga, gb]
                normed = self._node("DivBackward0", [self._edge(y), self._edge(root)], div_backward, normed)
            self.release(root)  # a temporary of the expression (kept by the division's node)
            out = self._no_norm(normed, module + ".weight", module + ".bias")
        return self.end_scope(mark, out)

    def _centred(self, x: T, mean: T, size: int = 4) -> T:
        """``x - mean`` (float32, or ``size`` bytes a number: I-BERT's in the model's dtype): ``SubBackward0`` keeps
        nothing; x's gradient is the incoming one, the mean's ``-grad`` (a new tensor of x's shape) summed to [.., 1]
        by ``validate_outputs``."""
        self._begin()
        self._labelled("sub", "aten.sub")
        out = self.new(x.shape, x.grad, size)
        if not out.grad:
            return out
        shape, rows = x.shape, mean.shape

        def run(bw: Backward, g: T) -> list[T | None]:
            neg = bw.alloc(shape, size, "aten.neg")
            bw.applied()
            summed = bw.alloc(rows, size, "aten.sum")
            bw.drop(neg.storage)
            return [bw.alias(g, g.shape, g.strides), summed]
        return self._node("SubBackward0", [self._edge(x), self._edge(mean)], run, out, [])

    def add_head_bias(self, t: T, name: str) -> T:
        """``layer + transpose_for_scores(bias[None, None, :])``, laid out as ``t``: ``AddBackward0`` hands the
        gradient on and sums the bias's to [1, A, 1, D] (a new tensor of H numbers)."""
        self._begin()
        self._labelled("add", "aten.add")
        trains = self.param_trains(name)
        out = self._laid_out(t, t.grad or trains, "aten.add")
        if not out.grad:
            return out
        width, through = self.shapes[name], t.grad

        def run(bw: Backward, g: T) -> list[T | None]:
            return [bw.alias(g, g.shape, g.strides) if through else None,
                    bw.alloc(width, g.itemsize, "aten.sum") if trains else None]
        return self._node("AddBackward0", [self._edge(t), self._accumulator(name) if trains else None], run, out, [])

    def divide_laid_out(self, t: T, scale: T) -> T:
        """``t / scale.to(t.dtype)`` (a 0-dim float32 tensor) laid out as ``t``: ``DivBackward0`` keeps the scalar;
        its gradient ``grad / scale`` is laid out as the incoming one."""
        self._begin()
        self._labelled("div", "aten.div")
        if t.grad:
            self.save(scale)
        out = self._laid_out(t, t.grad, "aten.div")
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            return [bw.alloc(shape, size, "aten.div", _dense_strides(g.shape, g.strides) if g.shape == shape else None)]
        return self._node("DivBackward0", [self._edge(t)], run, out)

    def divide_view_(self, t: T, scale: T) -> T:
        """``t /= scale`` in place on a view of a Linear's output (DeBERTa's ``pos_query_layer``): autograd rebases
        the base's history on a ``CopySlices`` node (wrapping ``DivBackward0``, which keeps the scalar) and gives the
        view an ``AsStridedBackward0``. Measured: ``AsStridedBackward0`` allocates the base's gradient;
        ``CopySlices`` a copy of it (``result``), a clone of the view's slice, and ``grad / scale``, then frees the
        clone and the quotient. The forward allocates nothing."""
        self._begin()
        out = Ops.divide_view_(self, t, scale)
        if not out.grad:
            return out
        node = self.edge.get(id(t))
        while node is not None and self.nodes[node].name in ("ViewBackward0", "PermuteBackward0", "TransposeBackward0"):
            node = self.nodes[node].nexts[0]
        if node is None:
            self.fail("an in-place division of a view of an unmodelled base")
            return out
        numel = 1
        for d in t.shape:  # the view covers its base whole
            numel *= d
        return self._rebased_view(t, node, (numel,), "aten.div")

    def slice_rows(self, t: T, start: int, rows: int) -> T:
        """``table[a:b, :].unsqueeze(0)``: ``SliceBackward0`` allocates zeros of the table's shape and copies the
        gradient in (``slice_backward``); the unsqueeze's backward is a view."""
        out = Ops.slice_rows(self, t, start, rows)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize
        return self._node("SliceBackward0", [self._edge(t)],
                          lambda bw, g: [bw.alloc(shape, size, "aten.slice_backward")], out, [])

    def chunk_thirds(self, t: T) -> list[T]:
        """``chunk(3, -1)``: one ``SplitBackward0`` (its backward concatenates the three gradients: a new tensor of
        ``t``'s shape)."""
        parts = Ops.chunk_thirds(self, t)
        if not t.grad:
            return parts
        return self._slotted("SplitBackward0", "aten.cat", t, parts)

    # -- Funnel's operations (issue 32; facts measured with tests/crosscheck/peak_measure.py)

    def minus_mask(self, t: T, mask: T, promoted: bool = False) -> T:
        """``attn_score - INF * (1 - mask)``: ``SubBackward0`` hands the gradient on to the scores (the mask needs
        none). ``promoted``: a wider result (BigBird's ``logits - logits_mask * 1e6``, bf16 logits minus float32)
        whose gradient ``validate_outputs`` casts back to ``t``'s dtype, a new tensor (measured)."""
        self._begin()
        self._labelled("sub", "aten.sub")
        out = super().minus_mask(t, mask)
        if not out.grad:
            return out
        if out.itemsize != t.itemsize and promoted:
            shape, size = t.shape, t.itemsize
            return self._node("SubBackward0", [self._edge(t)],
                              lambda bw, g: [bw.alloc(shape, size, "aten._to_copy")], out, [])
        if out.itemsize != t.itemsize:
            self.fail("a promoting subtraction")
        return self._node("SubBackward0", [self._edge(t)], _passed(1), out, [])

    def repeat_rows(self, t: T, times: int) -> T:
        """``repeat_interleave`` by a number: one new tensor (``aten.clone`` of the expanded rows); its backward
        (``ViewBackward0``, ``CloneBackward0`` passing the gradient on, ``ExpandBackward0``) sums the gradient back to
        ``t``'s shape, a new tensor (measured with ``backward_ledger``)."""
        self._begin()
        self._labelled("repeat_interleave", "aten.clone")
        out = super().repeat_rows(t, times)
        if not out.grad:
            return out
        return self._pointwise_backward("ExpandBackward0", "aten.sum", t, out)

    def pad_end(self, t: T, shape: Sequence[int]) -> T:
        """``nn.functional.pad`` with zeros after the rows: ``ConstantPadNdBackward0`` allocates the gradient cut back
        to ``t``'s shape (``constant_pad_nd`` by the negated padding: a new tensor, measured)."""
        self._begin()
        self._labelled("constant_pad_nd", "aten.constant_pad_nd")
        out = super().pad_end(t, shape)
        if not out.grad:
            return out
        return self._pointwise_backward("ConstantPadNdBackward0", "aten.constant_pad_nd", t, out)

    def times_table(self, t: T, table: T) -> T:
        """``t * table`` (the table needing no gradient): ``MulBackward0`` keeps the table; ``grad * table`` is laid
        out as the incoming gradient (TensorIterator follows its first operand: Funnel's permuted einsum gradients,
        measured)."""
        if not (t.grad and self.grad_mode) or t.itemsize < table.itemsize:  # a promoted one: _times_table's node
            return self._times_table(t, table)
        self._begin()
        self._labelled("mul", "aten.mul")
        out = self._like(t, t.grad, t.itemsize)
        self.save(table)
        shape, size = t.shape, t.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            laid = dense_strides_like(g) if g.shape == shape else None
            return [bw.alloc(shape, size, "aten.mul", laid)]
        return self._node("MulBackward0", [self._edge(t)], run, out)

    def pool_pairs(self, x: T, mode: str) -> T:
        """``avg_pool2d`` / ``max_pool2d`` over pairs of positions: max pooling makes its int64 indices too (dropped at
        once when nothing needs a gradient). ``AvgPool2DBackward0`` keeps the input, ``MaxPool2DWithIndicesBackward0``
        the input and the indices; each allocates the input's gradient (measured with ``backward_ledger``)."""
        self._begin()
        if x.grad:  # the max's node keeps the input and its int64 indices; both allocate the input's gradient
            self._labelled("avg_pool2d" if mode == "mean" else "max_pool2d", "aten.avg_pool2d" if mode == "mean"
                           else "aten.max_pool2d_with_indices")
            out = super().pool_pairs(x, mode)
            return self._pointwise_backward("AvgPool2DBackward0" if mode == "mean" else "MaxPool2DWithIndicesBackward0",
                                            "aten.avg_pool2d_backward" if mode == "mean"
                                            else "aten.max_pool2d_with_indices_backward", x, out)
        self._labelled("avg_pool2d" if mode == "mean" else "max_pool2d", "aten.avg_pool2d" if mode == "mean"
                       else "aten.max_pool2d_with_indices")
        out = super().pool_pairs(x, mode)
        if mode != "mean":
            self.release(self.new(out.shape, False, 8))
        return out


    def einsum(self, spec: str, a: T, b: T) -> T:
        """``torch.einsum`` (:meth:`.ops.Ops.einsum`): under autocast its ``bmm`` casts float32 operands to bf16, C++
        temporaries of the call (:meth:`_autocast_call`; the caller's scope drops them unless ``bmm`` keeps them)."""
        if self.lower is None:
            return super().einsum(spec, a, b)
        with self._autocast_call():
            return super().einsum(spec, a, b)

    def einsum_operand(self, t: T, labels: str, order: list[str], view: T) -> T:
        """An einsum operand permuted and unsqueezed (``PermuteBackward0``, ``UnsqueezeBackward0``): the gradient
        handed back as a view in the operand's order of dimensions, nothing allocated (measured). A parameter's
        (r_kernel, seg_embed) AccumulateGrad then copies it (:attr:`Node.copies`: the permuted layout, or the sum of
        several in it, breaks the layout contract)."""
        if not view.grad:
            return view
        place = [order.index(c) if c in order else None for c in labels]
        shape = t.shape
        edge = self._edge(t)
        if edge is not None and self.nodes[edge].param is not None:  # r_kernel, seg_embed: a permuted gradient
            self.nodes[edge].copies = True

        def run(bw: Backward, g: T) -> list[T | None]:
            return [bw.alias(g, shape, [g.strides[i] if i is not None else 1 for i in place])]
        return self._node("PermuteBackward0", [edge], run, view, [])

    def einsum_mul(self, a: T, b: T, shape: tuple[int, ...]) -> T:
        """An einsum without a contraction (Funnel's one-wide heads): ``MulBackward0`` keeps both factors; its backward
        makes ``grad * other`` for each factor needing a gradient (the output's shape), then sums each to its factor's
        shape where it broadcast (``sum_to``), freeing the product (measured with ``backward_ledger``). The output is a
        base an in-place op on a view of it rebases (:meth:`keep_other`)."""
        self._begin()
        self._labelled("mul", "aten.mul")
        out = super().einsum_mul(a, b, shape)
        if not out.grad:
            return out
        size = out.itemsize
        count = 1
        for d in shape:
            count *= d
        # Under autocast a bf16 factor times a float32 one promotes (mul is on no autocast list): validate_outputs
        # sums the factor's gradient to its shape, then casts it back to its dtype (each step a new tensor).
        needs = [(t.grad, t.shape, t.numel != count, t.itemsize) for t in (a, b)]

        def run(bw: Backward, g: T) -> list[T | None]:
            products = [bw.alloc(shape, size, "aten.mul", dense_strides_like(g)) if grad else None
                        for grad, _, _, _ in needs]
            grads: list[T | None] = []
            for product, (_, factor, summed, itemsize) in zip(products, needs):
                grad = product
                if product is not None and summed:
                    grad = bw.alloc(factor, size, "aten.sum")
                    bw.drop(product.storage)
                if grad is not None and itemsize != size:
                    cast = bw.alloc(factor, itemsize, "aten._to_copy")
                    bw.drop(grad.storage)
                    grad = cast
                grads.append(grad)
            return grads
        node = self._node("MulBackward0", [self._edge(a), self._edge(b)], run, out)
        self._einsum_bases[out.storage] = self.edge[id(out)]
        return node

    def einsum_result(self, out: T, order: list[str], labels: str, view: T) -> T:
        """``bmm``'s output viewed and permuted to the einsum's labels: the gradient permuted back and reshaped to
        ``bmm``'s [batch, left, right] (a copy where its strides do not allow a view: measured). The output's storage
        is remembered as a base (:meth:`keep_other` on a view of it)."""
        if not view.grad:
            return view
        flat = out.shape
        place = [labels.index(c) for c in order]

        def run(bw: Backward, g: T) -> list[T | None]:
            permuted = T(tuple(g.shape[i] for i in place), tuple(g.strides[i] for i in place), g.storage, True,
                         g.itemsize)
            return [bw.reshape(permuted, flat)]
        self._einsum_bases[out.storage] = self._edge(out)
        return self._node("ViewBackward0", [self._edge(out)], run, view, [])

    def keep_other(self, t: T, other: T) -> T:
        """``t *= other`` in place, ``other`` needing no gradient (kept). On a tensor of its own, ``MulBackward0``
        allocates ``grad * other``; on a view of an einsum's output (Funnel's shifted positional scores) autograd
        rebases the base: ``AsStridedBackward0`` allocates the base's gradient (``new_zeros``), ``CopySlices`` a copy
        of it (``new_empty_strided``), the slice's ``clone`` and ``grad * other`` (both freed as it returns), and
        hands the copy to the base's node (measured with ``backward_ledger``)."""
        self._begin()
        if not t.grad:
            return super().keep_other(t, other)
        size, shape = t.itemsize, t.shape
        # Under autocast a bf16 ``t`` times the float32 cls mask: ``grad * other`` is float32 (promoted).
        wide = max(size, other.itemsize) if self.lower is not None else size
        base = self._einsum_bases.get(t.storage)
        if base is None:
            out = super().keep_other(t, other)
            out = T(t.shape, t.strides, t.storage, True, size)

            def run(bw: Backward, g: T) -> list[T | None]:
                product = bw.alloc(shape, wide, "aten.mul")
                if wide == size:
                    return [product]
                cast = bw.alloc(shape, size, "aten._to_copy")  # validate_outputs: back to t's dtype
                bw.drop(product.storage)
                return [cast]
            return self._node("MulBackward0", [self._edge(t)], run, out)
        self.save(other)
        return self._rebased_view(t, base, (self.storages[t.storage] // size,), "aten.mul", wide)

    def _rebased_view(self, t: T, base: int, flat: tuple[int], op: str, wide: int | None = None) -> T:
        """The nodes of an in-place ``op`` on a view ``t`` of a base of ``flat`` elements whose node is ``base``
        (DeBERTa's ``/=``, Funnel's ``*=``): autograd rebases the base's history on a ``CopySlices`` node, which
        allocates a copy of the base's gradient (``new_empty_strided``), a clone of the view's slice and the op's
        product (both freed as it returns), and gives the view an ``AsStridedBackward0`` that allocates the base's
        gradient: ``as_strided_backward``'s ``grad.new_zeros`` (what ``LiveBytes`` names it by: measured for both,
        DeBERTa's ``pos_query_layer /=`` too). ``wide``: the product's bytes per number where autocast promotes it
        (Funnel's bf16 scores times the float32 cls mask: ``copy_`` casts it into the copy, nothing more allocated;
        measured)."""
        shape, size = t.shape, t.itemsize
        product_size = wide or size

        def copy_slices(bw: Backward, g: T) -> list[T | None]:
            result = bw.alloc(flat, size, "aten.new_empty_strided")
            piece = bw.alloc(shape, size, "aten.clone")
            product = bw.alloc(shape, product_size, op)
            bw.drop(piece.storage)
            bw.drop(product.storage)
            return [result]
        handle = T(flat, (1,), t.storage, True, size)
        self._node("CopySlices", [base], copy_slices, handle)
        copy = self.edge.pop(id(handle))
        out = T(t.shape, t.strides, t.storage, True, size)
        return self._node("AsStridedBackward0", [copy], lambda bw, g: [bw.alloc(flat, size, "aten.new_zeros")], out,
                          [])

    def split_where(self, condition: T, bias: T, shape: Sequence[int]) -> T:
        """``torch.split(bias, 1, -1)`` then ``where(condition, same.expand, diff.expand)``: ``WhereBackward0`` keeps
        the condition and allocates two gradients of the output's shape (each after a 0-dim ``scalar_tensor``, freed
        at once); each ``ExpandBackward0`` sums its one to a column; ``SplitBackward0`` concatenates the two columns
        into a new tensor of ``bias``'s shape (measured with ``backward_ledger``)."""
        self._begin()
        if not bias.grad:
            return super().split_where(condition, bias, shape)
        self._labelled("where", "aten.where")
        column = bias.shape[:-1] + (1,)
        size = bias.itemsize
        diff, same = (T(column, bias.strides, bias.storage, True, size) for _ in range(2))
        self._slotted("SplitBackward0", "aten.cat", bias, [diff, same])
        expanded = []
        for part in (same, diff):
            view = T(tuple(shape), tuple(0 if c == 1 and n != 1 else st for c, n, st in zip(column, shape, bias.strides)),
                     bias.storage, True, size)
            expanded.append(self._node("ExpandBackward0", [self._edge(part)],
                                       lambda bw, g: [bw.alloc(column, size, "aten.sum")], view, []))
        self.save(condition)
        out = self.new(shape, True, size)
        full = tuple(shape)

        def run(bw: Backward, g: T) -> list[T | None]:
            grads: list[T | None] = []
            for _ in range(2):
                scalar = bw.alloc((), size, "aten.scalar_tensor")
                grads.append(bw.alloc(full, size, "aten.where"))
                bw.drop(scalar.storage)
            return grads
        return self._node("WhereBackward0", [self._edge(v) for v in expanded], run, out)

    def slice_dim(self, t: T, dim: int, length: int, step: int = 1) -> T:
        """A slice whose gradient is needed: ``SliceBackward0`` allocates a zero tensor of ``t``'s shape and copies
        the gradient into it (``slice_backward``)."""
        out = super().slice_dim(t, dim, length, step)
        if not out.grad:
            return out
        shape, size = t.shape, t.itemsize
        if length == t.shape[dim] and step == 1:  # the whole dimension: ``alias``, whose backward passes it on
            return self._node("AliasBackward0", [self._edge(t)], lambda bw, g: [bw.alias(g, g.shape, g.strides)], out,
                              [])
        return self._node("SliceBackward0", [self._edge(t)],
                          lambda bw, g: [bw.alloc(shape, size, "aten.slice_backward")], out, [])


    # -- NeoMME's operations (issue 32; each node's allocations measured with peak_measure.backward_ledger)

    def _pow_grad(self, name: str, t: T, out: T) -> T:
        """``PowBackward0`` of ``t ** c`` (``c`` a number): ``grad * (c * t.pow(c - 1))``, three tensors of ``t``'s
        shape, the two factors freed as it returns (measured for ``pow(2)`` and ``pow(-0.5)``)."""
        shape = t.shape

        def run(bw: Backward, g: T) -> list[T | None]:
            first, second = bw.alloc(shape, t.itemsize, "aten.pow"), bw.alloc(shape, t.itemsize, "aten.mul")
            out_ = bw.alloc(shape, t.itemsize, "aten.mul")
            bw.drop(first.storage)
            bw.drop(second.storage)
            return [out_]
        self.save(t)
        return self._node(name, [self._edge(t)], run, out)

    def rms_norm_pow(self, x: T) -> T:
        """``NeoMMERMSNorm`` without a scale, op by op: ``x.float()`` (a copy below float32, ``_norm``'s argument,
        gone as it returns); ``pow(2)`` (``PowBackward0`` keeps x32; gone after the mean); ``mean`` (gone after
        ``+ eps``); ``mean_squared`` (kept by ``torch.pow(·, -0.5)``, named until ``_norm`` returns); the power
        (kept by the product, a temporary); the product; ``.type_as(x)`` (the float32 product rebound)."""
        mark = self.scope()
        x32 = x if x.itemsize == 4 else self.to_dtype(x, 4)
        shape, rows = x.shape, x.shape[:-1] + (1,)
        inner = self.scope()  # _norm
        self._begin()
        self._labelled("pow", "aten.pow")
        power = self.new(shape, x32.grad, 4)
        if power.grad:
            power = self._pow_grad("PowBackward0", x32, power)
        self._labelled("mean", "aten.mean")
        variance = self.new(rows, power.grad, 4)
        if variance.grad:
            variance = self._pointwise_backward("MeanBackward1", "aten.div", power, variance)
        self.release(power)
        self._labelled("add", "aten.add")
        shifted = self.new(rows, variance.grad, 4)
        if shifted.grad:
            shifted = self._node("AddBackward1", [self._edge(variance)],
                                 lambda bw, g: [bw.alias(g, g.shape, g.strides)], shifted, [])
        self.release(variance)
        self._begin()
        self._labelled("pow", "aten.pow")
        root = self.new(rows, shifted.grad, 4)
        if root.grad:
            root = self._pow_grad("PowBackward0", shifted, root)
        self._begin()
        self._labelled("mul", "aten.mul")
        normed = self.new(shape, x32.grad, 4)
        if normed.grad:
            self.save(x32)
            self.save(root)

            def product(bw: Backward, g: T) -> list[T | None]:
                gx = bw.alloc(shape, 4, "aten.mul")
                full = bw.alloc(shape, 4, "aten.mul")
                gr = bw.alloc(rows, 4, "aten.sum")
                bw.drop(full.storage)
                return [gx, gr]
            normed = self._node("MulBackward0", [self._edge(x32), self._edge(root)], product, normed)
        self.end_scope(inner, normed)
        if x32 is not x:
            self.release(x32)  # _norm's argument
        out = normed
        if x.itemsize != 4:
            out = self.to_dtype(normed, x.itemsize)
            self.release(normed)
        return self.end_scope(mark, out)

    def normalize_last(self, x: T) -> T:
        """``F.normalize(x, dim=-1)`` op by op: ``linalg_vector_norm`` (keeps its input and output; backward
        ``grad * (x / norm).masked_fill_(norm == 0, 0)``: two tensors of x's shape and a bool [.., 1], all live to
        the end of the expression, the quotient and the mask freed), ``clamp_min`` (keeps the norm; backward
        ``where(norm >= eps, grad, scalar_tensor(0))``: a 0-dim scalar, a bool mask and the gradient), ``expand_as``
        (``sum_to`` the rows), the division (keeps both; backward the divisor's ``-grad * ((x / d) / d)`` first, its
        three temporaries freed at the statement's end, then ``grad / d``). The norm and its clamp are temporaries of ``normalize``."""
        rows = x.shape[:-1] + (1,)
        shape, size = x.shape, x.itemsize
        mark = self.scope()
        self._begin()
        self._labelled("norm", "aten.linalg_vector_norm")
        norm = self.new(rows, x.grad, size)
        if norm.grad:
            self.save(x)
            self.save(norm)

            def norm_backward(bw: Backward, g: T) -> list[T | None]:
                quotient = bw.alloc(shape, size, "aten.div")
                zero = bw.alloc(rows, 1, "aten.eq")
                grad = bw.alloc(shape, size, "aten.mul")
                bw.drop(quotient.storage)
                bw.drop(zero.storage)
                return [grad]
            norm = self._node("LinalgVectorNormBackward0", [self._edge(x)], norm_backward, norm)
        self._labelled("clamp_min", "aten.clamp_min")
        clamped = self.new(rows, norm.grad, size)
        if clamped.grad:
            self.save(norm)

            def clamp_backward(bw: Backward, g: T) -> list[T | None]:
                scalar = bw.alloc((), size, "aten.scalar_tensor")
                mask = bw.alloc(rows, 1, "aten.ge")
                grad = bw.alloc(rows, size, "aten.where")
                bw.drop(scalar.storage)
                bw.drop(mask.storage)
                return [grad]
            clamped = self._node("ClampMinBackward0", [self._edge(norm)], clamp_backward, clamped)
        self.release(norm)
        wide = Ops.expand(self, clamped, shape)
        if wide.grad:
            wide = self._node("ExpandBackward0", [self._edge(clamped)],
                              lambda bw, g: [bw.alloc(rows, size, "aten.sum")], wide, [])
        self._begin()
        self._labelled("div", "aten.div")
        out = self._laid_out(x, x.grad, "aten.div")
        if out.grad:
            self.save(x)
            self.save(clamped)

            def div_backward(bw: Backward, g: T) -> list[T | None]:
                temps = [bw.alloc(shape, size, "aten.div"), bw.alloc(shape, size, "aten.div"),
                         bw.alloc(shape, size, "aten.neg")]
                gd = bw.alloc(shape, size, "aten.mul")
                for temp in temps:
                    bw.drop(temp.storage)
                gx = bw.alloc(shape, size, "aten.div")
                return [gx, gd]
            out = self._node("DivBackward0", [self._edge(x), self._edge(wide)], div_backward, out)
        return self.end_scope(mark, out)

    def square(self, t: T) -> T:
        """``torch.square``: ``pow(t, 2)``, whose ``PowBackward0`` keeps its input (three tensors, two freed)."""
        self._begin()
        self._labelled("pow", "aten.pow")
        out = self._laid_out(t, t.grad, "aten.pow")
        return self._pow_grad("PowBackward0", t, out) if out.grad else out

    def sigmoid(self, t: T) -> T:
        """``torch.sigmoid``: ``SigmoidBackward0`` keeps its output, allocates the gradient."""
        self._begin()
        self._labelled("sigmoid", "aten.sigmoid")
        out = self._laid_out(t, t.grad, "aten.sigmoid")
        if not out.grad:
            return out
        self.save(out)
        return self._pointwise_backward("SigmoidBackward0", "aten.sigmoid_backward", t, out)

    def subtract(self, a: T, b: T) -> T:
        """``a - b`` of one shape and dtype, laid out as ``a``: ``SubBackward0`` hands ``a`` the gradient itself and
        allocates ``-grad`` for ``b``."""
        self._begin()
        self._labelled("sub", "aten.sub")
        out = self._laid_out(a, a.grad or b.grad, "aten.sub")
        if not out.grad:
            return out
        if a.shape != b.shape or a.itemsize != b.itemsize:
            self.fail("a broadcasting or promoting subtraction")
        shape, size = b.shape, b.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            ga = bw.alias(g, g.shape, g.strides) if a.grad else None
            gb = bw.alloc(shape, size, "aten.neg") if b.grad else None
            return [ga, gb]
        return self._node("SubBackward0", [self._edge(a), self._edge(b)], run, out, [])

    def sum_keep(self, t: T) -> T:
        """``t.sum(-1, keepdim=True)``: ``SumBackward1`` hands on the gradient expanded (a view)."""
        self._begin()
        self._labelled("sum", "aten.sum")
        out = Ops.sum_keep(self, t)
        if not out.grad:
            return out
        shape = t.shape
        return self._node("SumBackward1", [self._edge(t)],
                          lambda bw, g: [bw.alias(g, shape, g.strides[:-1] + (0,))], out, [])

    def mul_broadcast(self, a: T, b: T, shape: Sequence[int]) -> T:
        """``a * b`` broadcast to ``shape``, one dtype: ``MulBackward0`` keeps each factor for the other's gradient;
        its backward allocates ``grad * b`` and ``grad * a`` (``shape``), then ``validate_outputs`` sums a broadcast
        factor's to its shape (a new tensor, the full one freed)."""
        self._begin()
        self._labelled("mul", "aten.mul")
        out = Ops.mul(self, a, b, shape)
        if not out.grad:
            return out
        if a.itemsize != b.itemsize:
            self.fail("a promoting product")
        full = tuple(shape)

        def run(bw: Backward, g: T) -> list[T | None]:
            ga = bw.alloc(full, a.itemsize, "aten.mul") if a.grad else None
            gb = bw.alloc(full, b.itemsize, "aten.mul") if b.grad else None
            bw.applied()  # a checkpointed layer's unpacked factors go as apply returns, before validate_outputs
            out_: list[T | None] = []
            for t, grad in ((a, ga), (b, gb)):
                if grad is not None and t.shape != full:
                    summed = bw.alloc(t.shape, t.itemsize, "aten.sum")
                    bw.drop(grad.storage)
                    grad = summed
                out_.append(grad)
            return out_
        return self._node("MulBackward0", [self._edge(a), self._edge(b)], run, out)

    #: The aten operation :meth:`product` names its output and gradients by.
    _product_op = "aten.bmm"

    def matmul_matrix(self, x: T, m: T) -> T:
        """:meth:`~.ops.Ops.matmul_matrix`: :meth:`matmul_by`, its product and gradients named ``aten.mm`` (NeoMME's
        ``hidden @ unembedding_projection.weight``, measured)."""
        self._product_op = "aten.mm"
        try:
            return self.matmul_by(x, m)
        finally:
            self._product_op = "aten.bmm"

    def relaid(self, t: T, strides: Sequence[int] | None = None, itemsize: int | None = None) -> T:
        """:meth:`~.ops.Ops.relaid`: the same tensor, its gradient to the same node."""
        out = Ops.relaid(self, t, strides, itemsize)
        if id(t) in self.edge:
            self.edge[id(out)] = self.edge[id(t)]
            self.keep.append(out)
        return out

    # -- Reformer's reversible layers (issue 32/34): ``_ReversibleFunction``, its backward's reruns with their graphs

    def reformer_softmax(self, dots: T) -> T:
        """``torch.exp(dots - torch.logsumexp(dots, dim=-1, keepdim=True))`` with a graph (Reformer's attention, no
        mask): ``LogsumexpBackward0`` keeps its input and result (its backward: ``sub``, ``exp``, ``mul``, the first
        two freed before it returns), ``SubBackward0`` nothing (the broadcast operand's gradient: ``neg`` then ``sum``),
        ``ExpBackward0`` its result (``mul``); the difference dies as ``exp`` returns (measured: LiveBytes)."""
        self._begin()
        rows, size = dots.shape[:-1] + (1,), dots.itemsize
        self._labelled("logsumexp", "aten.logsumexp")
        self.save(dots)
        lse = self.new(rows, True, size)
        self.save(lse)

        def lse_run(bw: Backward, g: T) -> list[T | None]:
            diff = bw.alloc(dots.shape, size, "aten.sub")
            e = bw.alloc(dots.shape, size, "aten.exp")
            out = bw.alloc(dots.shape, size, "aten.mul")
            bw.drop(e.storage)
            bw.drop(diff.storage)
            return [out]
        lse = self._node("LogsumexpBackward0", [self._edge(dots)], lse_run, lse)
        self._labelled("sub", "aten.sub")
        diff = self.new(dots.shape, True, size)

        def sub_run(bw: Backward, g: T) -> list[T | None]:
            neg = bw.alloc(g.shape, size, "aten.neg")
            summed = bw.alloc(rows, size, "aten.sum")
            bw.drop(neg.storage)
            return [bw.alias(g, g.shape, g.strides), summed]
        diff = self._node("SubBackward0", [self._edge(dots), self._edge(lse)], sub_run, diff, [])
        self._labelled("exp", "aten.exp")
        probs = self.new(dots.shape, True, size)
        self.save(probs)
        self.release(diff, lse)  # the difference, a temporary; ``del logits`` (its node keeps it)
        return self._node("ExpBackward0", [self._edge(diff)], lambda bw, g: [bw.alloc(g.shape, size, "aten.mul")],
                          probs)

    def masked_where(self, x: T, cond: T) -> T:
        """``torch.where`` of ``x`` against a constant under a bool condition (Longformer's ``full_like(x, -inf)
        .where(cond, x)``, Reformer's causal and self masks against a 0-dim buffer): with a graph where ``x`` needs one,
        ``WhereBackward0`` keeps the condition; its backward makes a 0-dim zero (``scalar_tensor``), the gradient
        ``where(cond, grad, 0)``, and drops the zero (measured with LiveBytes in both)."""
        self._begin()
        self._labelled("where", "aten.where")
        out = self.made_by(self.new(x.shape, x.grad, x.itemsize), "aten.where")
        if not out.grad:
            return out
        self.save(cond)
        shape, size = x.shape, x.itemsize

        def run(bw: Backward, g: T) -> list[T | None]:
            zero = bw.alloc((), size, "aten.scalar_tensor")
            grad = bw.alloc(shape, size, "aten.where")
            bw.drop(zero.storage)
            return [grad]
        return self._node("WhereBackward0", [self._edge(x)], run, out)

    def reversible_rerun(self, fn: Callable[[Sim, T], T], x: T) -> tuple[int, list[T]]:
        """One of the two reruns ``ReformerLayer.backward_pass`` makes of a reversible layer inside
        ``_ReversibleFunction``'s backward (the feed-forward on ``next_attn_output``, the attention on the rebuilt
        ``hidden_states``), recorded with its graph as a block only that backward runs (:meth:`reversible_function`):
        ``x`` a leaf needing a gradient (``requires_grad = True``), whose ``AccumulateGrad`` keeps the ``.grad`` the
        nested backward gives it; the block's storages made only then (:attr:`recompute_only`: :func:`_recompute`
        makes them, each dropped where Python drops it unless a node of its graph saves it). Returns the block's
        index and the list the leaf's gradient lands in."""
        got: list[T] = []

        def keep(bw: Backward, g: T) -> list[T | None]:
            bw.hold(g.storage)  # next_attn_output.grad: the incoming gradient itself
            got.append(g)
            return []
        k, first, leaf = len(self.blocks_run), self._next, len(self.nodes)
        self.nodes.append(Node(ACCUMULATE, "AccumulateGrad", self.module, [], [], keep))
        detached = T(x.shape, x.strides, x.storage, True, x.itemsize)
        self.edge[id(detached)] = leaf
        self.keep.append(detached)
        grad_mode, self.grad_mode = self.grad_mode, True
        self._block = k
        mark = self.scope()
        try:
            out = fn(self, detached)
        finally:
            self._block = None
            self.grad_mode = grad_mode
        self.end_scope(mark, out)
        self.recompute_only.update(range(first + 1, self._next + 1))
        self.blocks_run.append(Block(x.storage, first, self._next, self._next, reentrant=True, output=out.storage,
                                     root=self.edge.get(id(out), 0), leaf=leaf, nodes=(leaf + 1, len(self.nodes))))
        return k, got

    def reversible_function(self, x: T, attn: T, hidden: T, layers: Sequence[tuple[int, list[T], int, list[T]]]) -> T:
        """``_ReversibleFunction.apply(x)``'s output (``cat([attn_output, hidden_states], -1)``), its forward's
        layers already run without a graph: ``ctx.save_for_backward`` keeps the last layer's two outputs, and its
        node's backward runs, layer by layer in reverse (``layers``: each one's two :meth:`reversible_rerun` blocks
        and their leaves' gradients), ``backward_pass`` as measured (LiveBytes, op by op):

        the feed-forward rerun with its graph and its nested backward from ``grad_hidden_states``
        (``retain_graph=True``: what its nodes save stays until ``del res_hidden_states``), ``hidden_states - res``,
        the graph gone, ``grad_attn_output + next_attn_output.grad`` (the ``.grad`` then dropped); the attention the
        same way on the rebuilt hidden states, ``next_attn_output - output``,
        ``grad_hidden_states + hidden_states.grad``.
        The four tensors a layer returns (``ReformerBackwardOutput``) live until the next layer's ``backward_pass`` has
        returned (the caller's ``output`` rebound); the first four are the saved outputs and the incoming gradient's two
        halves. Last, ``cat`` of the two gradients, returned to the streams' ``cat``."""
        self._begin()
        grad_mode, self.grad_mode = self.grad_mode, True
        self.save(attn)
        self.save(hidden)
        self._labelled("cat", "aten.cat")
        out = self.new(x.shape, True, x.itemsize)
        self.grad_mode = grad_mode
        b, n, h2 = x.shape
        half = b * n * (h2 // 2) * x.itemsize
        size = x.itemsize

        def nested(bw: Backward, k: int, g: int, got: list[T]) -> tuple[int, T, list[int]]:
            """Block ``k`` run again with its graph and backward from ``g`` (a storage), the graph retained: returns
            the block's output (the recomputed storage), the leaf's ``.grad`` and what the graph still holds."""
            recompute = self.recompute
            assert recompute is not None
            block = self.blocks_run[k]
            made = recompute(bw, k)
            first, last = block.nodes
            for j in range(first, last):
                self.nodes[j].saved = [made[s] for s in self.nodes[j].saved if s in made]
            retained = [s for j in range(first, last) for s in self.nodes[j].saved]
            for s in retained:  # retain_graph=True: each saved tensor held past its node
                bw.hold(s)
            bw.hold(g)  # the nested graph task's own input buffer
            grad = T((b, n, h2 // 2), (n * h2, h2, 1), g, True, size)
            ran = _run(self.nodes, block.root, bw, g, grad=grad)
            self.ran.update(ran)
            for j in range(first, last):
                if j not in ran:
                    retained += self.nodes[j].saved
            if len(got) != 1:
                self.fail("a reversible layer's leaf gradient")
            return made[block.output], got.pop() if got else grad, retained

        def run(bw: Backward, g: T) -> list[T | None]:
            a_, h_ = attn.storage, hidden.storage
            state = [a_, h_, g.storage, g.storage]  # ReformerBackwardOutput: the saved outputs, the gradient's halves
            for s in state:
                bw.hold(s)
            for k_ff, got_ff, k_at, got_at in reversed(layers):
                a_, h_, ga, gh = state
                res, a_grad, retained = nested(bw, k_ff, gh, got_ff)
                h_new = bw.new_storage(half, "aten.sub")  # hidden_states - res_hidden_states
                bw.drop(res)  # del res_hidden_states: its graph goes
                for s in retained:
                    bw.drop(s)
                ga_new = bw.new_storage(half, "aten.add")  # grad_attn_output + next_attn_output.grad
                bw.drop(a_grad.storage)  # next_attn_output.grad = None
                res, h_grad, retained = nested(bw, k_at, ga_new, got_at)
                a_new = bw.new_storage(half, "aten.sub")  # next_attn_output - output
                bw.drop(res)  # del output
                for s in retained:
                    bw.drop(s)
                gh_new = bw.new_storage(half, "aten.add")  # grad_hidden_states + hidden_states.grad
                bw.drop(h_grad.storage)  # hidden_states.grad = None
                for s in state:  # the caller's output rebound: the previous layer's four go
                    bw.drop(s)
                state = [a_new, h_new, ga_new, gh_new]
            cat = bw.alloc(x.shape, size, "aten.cat")
            for s in state:  # the function returns: its last output goes
                bw.drop(s)
            return [cat]
        return self._node("_ReversibleFunctionBackward", [self._edge(x)], run, out)


@dataclass(frozen=True)
class Timeline:
    """What :func:`run_step` works out: the forward's bound, the backward's exact maximum and the live set then."""

    forward_bound: int
    loss_bound: int
    backward: int
    op: str
    module: str
    items: tuple[Item, ...]
    end: int  # live bytes when the backward has returned (before ``del loss``)
    #: Where the program declares every release (:meth:`LiveSim.exact_forward`): the forward's and the loss's
    #: maxima, exact (their ``bytes`` equal ``forward_bound`` and ``loss_bound``), with the op and what is live.
    forward: Peak | None = None
    loss: Peak | None = None
    #: :attr:`Backward.trace`: (live bytes, the ledger's storages rounded to 512) at every allocation.
    trace: tuple[tuple[int, int], ...] = ()
    #: An upper bound on how many storages the forward's and the loss's figures count (rounding each to 512 adds ≤ 511).
    storages: int = 0
    #: Per parameter (its storage's name), the bytes of the storage its ``.grad`` keeps: more than the parameter's where
    #: ``AccumulateGrad`` kept a view of a larger gradient (MobileBERT's ``dense.weight``: the whole [H, V] one); 0 where
    #: it views a storage another parameter's ``.grad`` keeps, counted there (MobileBERT's decoder at V = 1: the
    #: transposed slice obeys the layout contract, so AccumulateGrad keeps it, no copy; measured).
    grads: dict[str, int] = field(default_factory=dict)


def run_step(sim: LiveSim, outputs: Sequence[T], start_items: Sequence[Item], graded: Sequence[str]) -> Timeline | None:
    """The forward's bound and the backward's exact maximum for a program run on ``sim``; None (with
    ``sim.failed`` set) when something in it is not modelled. ``graded``: the parameters (storage names) that
    end with a ``.grad``, in the step's own reckoning: the graph must give exactly those."""
    if not sim.opted:
        sim.fail("program not modelled op by op")
    if sim.lower is not None and not (sim.autocast_exact and sim.forward_exact):
        sim.fail("autocast not modelled for this program")
    if sim.checkpointing and sim.reentrant and not sim.inv.family.costs.reentrant:
        sim.fail("reentrant checkpointing not proven for this program")
    sim._begin()
    if sim.failed:
        return None
    start = sum(i.bytes for i in start_items)
    saved: dict[int, int] = {}
    # Saved by a checkpointed block's node: a holder in the forward, recomputed later (per block: how many hold it).
    packed: dict[int, dict[int, int]] = {}
    for node in sim.nodes:
        for s in node.saved:
            if sim.storages.get(s, 0) and s != sim.input_ids:
                into = saved if node.block is None else packed.setdefault(node.block, {})
                into[s] = into.get(s, 0) + 1
    held = set(saved).union(*packed.values())
    expected = {s for s, n in sim.saved.items() if n and s != sim.input_ids}
    if held != expected - ((sim.unreached | set(sim.hangs_on)) - held):  # only an unreached node saved it: none
        sim.fail("saved storages and nodes disagree")
        return None
    inputs = {b.input for b in sim.blocks_run if not b.reentrant}  # kept by their checkpoint's frame
    for s in inputs:
        saved[s] = saved.get(s, 0) + 1
    for b in sim.blocks_run:  # the blocks' other arguments, kept by each frame (checkpoint_argument's, layer's also)
        for s in b.held + b.also if not b.reentrant else ():
            saved[s] = saved.get(s, 0) + 1
    for s in sim.graph_held:  # reentrant layers' keyword arguments: the graph keeps them past the backward
        saved[s] = saved.get(s, 0) + 1
    out_sids = {o.storage for o in outputs}
    sizes = {s: n for s, n in sim.storages.items() if n and s != sim.input_ids}
    replay = replay_forward(sim, set(saved) | out_sids, start_items)
    forward_bound = replay.bytes
    assert forward_bound is not None
    live = replay.end - start
    loss_peak: Peak | None = None
    if sim.forward_exact:
        loss_peak = _loss(outputs, replay.end, start_items, sim, set(saved) | out_sids | sim.outlive)
        assert loss_peak.bytes is not None
        loss_bound = loss_peak.bytes
    else:  # what the forward leaves (its bound at the end), one output's float32 copy at a time, the sums
        floats = [o.numel * 4 for o in outputs if o.itemsize != 4]
        loss_bound = start + live + max(floats or [0]) + SCALAR * (len(outputs) + 2)

    # The loss: sum over outputs of o.float().sum(); its nodes come after the forward's.
    bw = Backward(live=0)
    for s, n in saved.items():
        bw.sizes[s], bw.refs[s] = sizes[s], n
    bw.live = start + sum(sizes[s] for s in saved) + SCALAR  # the loss tensor
    ones = -(1 << 40)
    bw.sizes[ones], bw.refs[ones] = SCALAR, 1
    bw.live += SCALAR
    bw.check("aten.ones_like")
    previous: int | None = None
    for o in outputs:
        if not o.grad:
            continue
        target = sim._edge(o)
        if o.itemsize != 4:  # o.float(): ToCopyBackward0 casts the gradient back
            sim.nodes.append(Node(len(sim.nodes), "ToCopyBackward0", "", [target], [], _cast_back(o)))
            target = len(sim.nodes) - 1
        sim.nodes.append(Node(len(sim.nodes), "SumBackward0", "", [target], [], _expand(o)))
        nexts: list[int | None] = [len(sim.nodes) - 1] if previous is None else [previous, len(sim.nodes) - 1]
        sim.nodes.append(Node(len(sim.nodes), "AddBackward0", "", nexts, [], _passed(len(nexts))))  # 0 + s1, + s2...
        previous = len(sim.nodes) - 1
    if sim.failed or previous is None:
        sim.fail(sim.failed or "no output needs a gradient")
        return None
    sim.recompute = _recompute(sim, packed)
    ran = _run(sim.nodes, previous, bw, ones, sim.recompute, [b.input for b in sim.blocks_run],
               [b.held + b.also for b in sim.blocks_run])
    ran |= sim.ran  # reentrant checkpointing's nested backwards
    if sim.failed:
        return None
    if any(node.saved and i not in ran for i, node in enumerate(sim.nodes)):
        sim.fail("a node the loss never reaches holds saved storages")  # PyTorch frees them earlier
        return None
    grads = {sim.nodes[i].param for i in sim.accumulators.values()}
    if grads != set(graded):
        sim.fail("the graph's gradients differ from the step's")
        return None
    kept: dict[int, str] = {}  # gradient storages that end as .grad
    shared: set[str] = set()  # a .grad viewing a storage another parameter's .grad keeps: counted there
    for i in sim.accumulators.values():
        node = sim.nodes[i]
        shared.update(node.param or "" for s in node.grad_sids if s in kept)
        kept.update({s: node.param or "" for s in node.grad_sids if s not in kept})
    items = list(start_items)
    for s, n in bw.best_live.items():
        if s in kept:
            items.append(Item("gradient", kept[s] or "", n))
        elif s > 0:
            items.append(Item("activation", sim.made_in.get(s, ""), n))
        else:
            items.append(Item("temporary", "gradient" if s != ones else "ones_like(loss)", n))
    items.append(Item("temporary", "loss", SCALAR))
    return Timeline(forward_bound, loss_bound, bw.best, bw.best_op, bw.best_module, tuple(items), bw.live,
                    replay if sim.forward_exact else None, loss_peak,
                    trace=tuple(bw.trace) + ((bw.live, bw.rounded or 0),),
                    storages=len(sim.storages) + len(sim.extra) + 2 * len(outputs) + 3,
                    grads={**{name: bw.sizes[s] for s, name in kept.items() if name},
                           **{name: 0 for name in shared if name}})


def _deaths(sim: LiveSim, keep: set[int], recomputed: bool = False) -> dict[int, int]:
    """Per storage made in the forward, the storage after whose allocation it is gone: the earliest of its
    releases (:meth:`LiveSim.release`) and the end of the innermost function that made it without returning it;
    none for what ``keep`` holds (saved by autograd, returned by the forward) or a local of the model's own
    ``forward`` (gone at its end). What only a :meth:`~LiveSim.discarded` branch's nodes save lives on to that
    branch's output's death (but in a checkpointed block's forward, whose nodes hold holders; ``recomputed``: the
    block's recomputation, whose nodes hold the storages)."""
    keep = keep | sim.cached  # autocast's cache holds them to the region's end (replay_forward's ``end``)
    keep |= sim.forward_held  # as the model's output does, which the class's forward drops as it returns
    death = {s: at for s, at in sim.deaths.items() if s not in keep}
    for mark, last, returned in sim.scopes:
        for s in range(mark + 1, last + 1):
            if s not in returned and s not in keep and last < death.get(s, last + 1):
                death[s] = last
    for s, (owner, packed) in sim.hangs_on.items():
        if s in keep or s not in death or (packed and not recomputed):
            continue
        if owner in death:
            death[s] = max(death[s], death[owner])
        else:  # the output outlives the forward's functions: so does the node, and what it saves
            del death[s]
    return death


def replay_forward(sim: LiveSim, keep: set[int], start_items: Sequence[Item], phase: str = "forward") -> "Replay":
    """The forward replayed allocation by allocation: each storage live from its operation until its death
    (:func:`_deaths`). ``bytes`` is the maximum of the live bytes (``start_items`` live throughout), with the op
    that reached it and what was live then; exact where the program declares every release
    (:attr:`LiveSim.forward_exact`), else an upper bound (a storage counted until its scope's end at the
    latest). ``end``-ing live bytes (what ``keep`` holds, and the model's locals when not exact) in
    :attr:`Replay.end`."""
    keep = keep | sim.outlive  # held by the outputs (a decoder's cache): live when the forward has returned
    # What an unreached node saved (:meth:`LiveSim.unused`) lives with the graph until the forward returns.
    death = _deaths(sim, keep | sim.unreached)
    sizes = {s: n for s, n in sim.storages.items() if n and s != sim.input_ids and s not in sim.recompute_only}
    sizes.update(sim.extra)
    start = sum(i.bytes for i in start_items)
    live, best, at = start, -1, 0
    alive: dict[int, int] = {}
    best_live: dict[int, int] = {}
    ends: list[tuple[int, int]] = []
    trace = [start]  # the live bytes at each allocation (the timeline's points: .peak.with_timeline)
    for s in sorted(sizes):
        while ends and ends[0][0] < s:  # gone after an allocation of no bytes (an empty tensor), before this one
            gone = heapq.heappop(ends)[1]
            live -= sizes[gone]
            del alive[gone]
        live += sizes[s]
        trace.append(live)
        alive[s] = sizes[s]
        if s in death:
            heapq.heappush(ends, (death[s], s))
        if live > best:
            best, at, best_live = live, s, dict(alive)
        while ends and ends[0][0] <= s:  # storages whose last name went with this one's creation are gone after it
            gone = heapq.heappop(ends)[1]
            live -= sizes[gone]
            del alive[gone]
    if best < 0:
        best = start
    if sim.forward_exact:  # the model's forward returns: its locals go, what autograd saved and the outputs stay
        live = start + sum(n for s, n in alive.items() if s in keep)
    items = list(start_items) + [Item("buffer" if s in sim.buffer_made else "activation",
                                      sim.made_in.get(s) or sim.op_of.get(s, ""), n) for s, n in best_live.items()]
    top, kinds = _top(items)
    return Replay(best, phase, sim.op_of.get(at, ""), sim.made_in.get(at, ""), top, kinds, end=live,
                  trace=tuple(trace) + (live,))


@dataclass(frozen=True)
class Replay(Peak):
    """:func:`replay_forward`'s answer: a :class:`~.peak.Peak` and the live bytes when the forward has returned."""

    end: int = 0


def _loss(outputs: Sequence[T], forward_end: int, start_items: Sequence[Item], sim: LiveSim,
          kept: set[int]) -> Peak:
    """``loss = sum(o.float().sum() for o in outputs)`` from the forward's end: per output its float32 copy
    (``aten._to_copy``, a bf16 output only), its sum (4 bytes; the copy dropped), then ``0 + s1`` or
    ``loss + s_i`` (``aten.add``, a new 4-byte tensor; the previous one and ``s_i`` dropped)."""
    live, best, op = forward_end, -1, ""
    peak_extra: list[Item] = []
    running: list[Item] = []

    trace: list[int] = []

    def check(name: str, now: list[Item]) -> None:
        nonlocal best, op, peak_extra
        trace.append(live)
        if live > best:
            best, op, peak_extra = live, name, list(now)
    for o in outputs:
        copy = o.numel * 4 if o.itemsize != 4 else 0
        now = list(running)
        if copy:
            live += copy
            now.append(Item("temporary", "float()", copy))
            check("aten._to_copy", now)
        live += SCALAR
        now.append(Item("temporary", "sum", SCALAR))
        check("aten.sum", now)
        live -= copy
        live += SCALAR
        check("aten.add", [*running, Item("temporary", "sum", SCALAR), Item("temporary", "loss", SCALAR)])
        live -= SCALAR * (1 + len(running))
        running = [Item("temporary", "loss", SCALAR)]
    acts = [Item("activation", sim.made_in.get(s) or sim.op_of.get(s, ""), sim.storages.get(s, 0))
            for s in sorted(kept) if sim.storages.get(s, 0) and s != sim.input_ids]
    top, kinds = _top(list(start_items) + acts + peak_extra)
    return Peak(best, "loss", op, "", top, kinds, trace=tuple(trace))


def _cast_back(o: T) -> Callable[[Backward, T], list[T | None]]:
    """``ToCopyBackward0`` of ``o.float()``: the gradient cast back to ``o``'s dtype, a new tensor."""
    return lambda bw, g: [bw.alloc(o.shape, o.itemsize, "aten._to_copy")]


def _expand(o: T) -> Callable[[Backward, T], list[T | None]]:
    """``SumBackward0``: the scalar gradient expanded to ``o``'s shape (a view, strides 0)."""
    return lambda bw, g: [bw.alias(g, o.shape, (0,) * len(o.shape))]


def _passed(k: int) -> Callable[[Backward, T], list[T | None]]:
    """``AddBackward0``: the same gradient to each of its ``k`` inputs."""
    return lambda bw, g: [bw.alias(g, g.shape, g.strides) for _ in range(k)]


def _recompute(sim: LiveSim, packed: dict[int, dict[int, int]]) -> Callable[[Backward, int], dict[int, int]]:
    """A checkpointed block's recomputation (non-reentrant), as its first unpack runs it in the backward: the
    block's forward again, storage by storage in the same order, each dropped where Python drops it (as in the
    forward, :func:`_deaths` without autograd's keeping) unless the block's nodes hold it (``packed``: how many),
    up to its last pack (:attr:`Block.stop`), where ``_StopRecomputationError`` unwinds the function and every
    storage not held goes. Returns the forward's storage ids mapped to the recomputed ones."""
    death = _deaths(sim, set(), recomputed=True)
    sizes = {s: n for s, n in sim.storages.items() if n and s != sim.input_ids and s not in sim.forward_only}
    sizes.update(sim.extra)

    def run(bw: Backward, k: int) -> dict[int, int]:
        block = sim.blocks_run[k]
        made: dict[int, int] = {}
        named: set[int] = set()  # storages Python still names
        ends: list[tuple[int, int]] = []
        for s in sorted(i for i in sizes if block.first < i <= block.stop):
            while ends and ends[0][0] < s:  # gone after an allocation of no bytes, before this one
                gone = heapq.heappop(ends)[1]
                named.discard(gone)
                bw.drop(made[gone])
            held = packed.get(k, {}).get(s, 0)  # the block's own nodes' holders (a later block's are its own)
            made[s] = bw.new_storage(sizes[s], sim.op_of.get(s, ""), held + 1)  # + Python's name
            named.add(s)
            if s in death:
                heapq.heappush(ends, (death[s], s))
            while ends and ends[0][0] <= s:
                gone = heapq.heappop(ends)[1]
                named.discard(gone)
                bw.drop(made[gone])
        if block.reentrant:  # run_function returned: ``outputs`` keeps the outputs, its other locals go
            for s in (block.output, *(t.storage for t in block.extras)):
                if s in made:  # (an argument returned as it came: the ctx keeps it)
                    bw.hold(made[s])
        for s in sorted(named):  # the early stop unwinds the block's functions: every name goes
            bw.drop(made[s])
        return made
    return run


def _reentrant_backward(sim: LiveSim, k: int, bw: Backward, g: T, got: list[list[T]]) -> list[T | None]:
    """``CheckpointFunction.backward`` of block ``k`` (reentrant checkpointing): the block's forward again with a graph
    (:func:`_recompute` to its end: each storage gone where Python drops it unless a node of the new graph saves it;
    the output kept by ``outputs`` until this returns), ``torch.autograd.backward(outputs, args)``: the block's nodes
    run as a graph task of their own (:func:`_run`: the incoming gradient held by ``args`` throughout, parameters'
    gradients accumulated in place after the first), then the detached input's ``.grad`` returned; the output and
    what a node left unrun still saves go with the frame."""
    block = sim.blocks_run[k]
    recompute = sim.recompute
    assert recompute is not None
    given = bw.incoming[1:]  # the other outputs' gradients that arrived (a node of slots: in the outputs' order)
    if len(given) > len(block.extras):
        sim.fail("reentrant checkpointing: a gradient for an output not modelled")
        return [None] * len(got)
    # the others': zeros (ctx.materialize_grads), each held by ``args`` until the node's apply returns
    zeros = [*given, *(bw.alloc(t.shape, t.itemsize, "aten.zeros") for t in block.extras[len(given):])]
    for z in given:
        bw.hold(z.storage)
    made = recompute(bw, k)
    first, last = block.nodes
    for j in range(first, last):  # what the recomputation did not make again (its input) the ctx keeps
        sim.nodes[j].saved = [made[s] for s in sim.nodes[j].saved if s in made]
    bw.hold(g.storage)  # the nested graph task's own input buffer (``args`` keeps the caller's)
    root = block.root
    roots = [(j, z) for j, z in zip(block.extra_edges, zeros) if j is not None]
    if roots:  # torch.autograd.backward(outputs_with_grad, args_with_grad): a GraphRoot hands each its gradient
        handed = [g, *(z for _, z in roots)]
        sim.nodes.append(Node(ACCUMULATE + 1, "GraphRoot", "", [root, *(j for j, _ in roots)], [],
                              lambda bw, g: [bw.alias(t, t.shape, t.strides) for t in handed]))
        root = len(sim.nodes) - 1
    ran = _run(sim.nodes, root, bw, g.storage, grad=g)
    sim.ran.update(ran)
    for z in zeros:  # ``args`` goes as the node's apply returns
        bw.drop(z.storage)
    for t in block.extras:
        if t.storage in made:
            bw.drop(made[t.storage])
    bw.drop(made[block.output])  # ``outputs``, and the graph it roots: what an unrun node saves
    for j in range(first, last):
        if j not in ran:
            for s in sim.nodes[j].saved:
                bw.drop(s)
    if len(got[0]) != 1 or any(len(mine) > 1 for mine in got[1:]):
        sim.fail("reentrant checkpointing: the input's gradient")
        return [None]
    return [mine[0] if mine else None for mine in got]  # each detached input's .grad (None: it got none)


def _run(nodes: list[Node], root: int, bw: Backward, ones: int,
         recompute: Callable[[Backward, int], dict[int, int]] | None = None,
         inputs: Sequence[int] | None = None, args: Sequence[tuple[int, ...]] = (), grad: T | None = None) -> set[int]:
    """The autograd engine on one thread: dependencies counted from the root, then ready nodes by sequence
    number, highest first (AccumulateGrad at once); each runs, releases, and hands its gradients on. A node of a
    checkpointed block holding saved tensors first has its block recomputed (``recompute``), once; the block's
    input goes when the last of those nodes has run (the checkpoint's frame with it)."""
    deps: dict[int, int] = {}
    seen, stack = {root}, [root]
    while stack:
        i = stack.pop()
        for j in nodes[i].nexts:
            if j is not None:
                deps[j] = deps.get(j, 0) + 1
                if j not in seen:
                    seen.add(j)
                    stack.append(j)
    buffers: dict[int, T] = {root: grad if grad is not None else T((), (), ones, True, SCALAR)}
    parts: dict[int, list[T]] = {}  # the slots of a node of several outputs
    bw.hold(ones)
    ready = [(-nodes[root].seq, root)]
    ran: set[int] = set()
    holding: dict[int, list[int]] = {}  # per checkpointed block, its reachable nodes that hold saved tensors
    for j in sorted(seen):
        if nodes[j].block is not None and nodes[j].saved:
            holding.setdefault(nodes[j].block or 0, []).append(j)
    remaining = {k: len(js) for k, js in holding.items()}
    holders = {j for js in holding.values() for j in js}
    while ready:
        _, i = heapq.heappop(ready)
        ran.add(i)
        node = nodes[i]
        held = parts.pop(i) if node.slots else [buffers.pop(i)]
        g = held[0]
        bw.incoming = held
        bw.module = node.module or node.between
        k = node.block
        if i in holders and recompute is not None:
            assert k is not None
            if remaining[k] == len(holding[k]):  # the block's first unpack: it runs its forward again
                made = recompute(bw, k)
                for j in holding[k]:  # what it did not make again (its input) is the frame's to keep
                    nodes[j].saved = [made[s] for s in nodes[j].saved if s in made]
        recomputed = k is not None and recompute is not None
        if recomputed:
            bw.unpacked = list(node.saved)
        outs = node.run(bw, g)
        if node.param is not None and not node.grad_sids:  # (a copy's storage when AccumulateGrad made one)
            node.grad_sids = [g.storage]
        for h in held:
            bw.drop(h.storage)
        if recomputed:
            bw.applied()
        else:
            for s in node.saved:
                bw.drop(s)
        if i in holders and recompute is not None:
            assert k is not None
            remaining[k] -= 1
            if not remaining[k] and inputs is not None:  # the checkpoint's frame goes, and the input it kept
                bw.drop(inputs[k])
                for s in args[k] if k < len(args) else ():  # and the block's other arguments
                    bw.drop(s)
        for j, out in zip(node.nexts, outs):
            if j is None or out is None:
                if out is not None:
                    bw.drop(out.storage)
                if j is not None:
                    deps[j] -= 1
                    if not deps[j]:
                        heapq.heappush(ready, (-nodes[j].seq, j))
                continue
            if nodes[j].slots:
                parts.setdefault(j, []).append(out)
            elif j in buffers:
                old = buffers[j]
                # InputBuffer::accumulate's ``old + new``: TensorIterator lays the sum out in the order of dimensions
                # of its first operand when that one is dense (Funnel's query gradients from three einsums, each
                # permuted its own way: measured), else contiguous
                dense = old.strides == dense_strides_like(old)
                total = bw.alloc(old.shape, old.itemsize, "aten.add", old.strides if dense else None)
                bw.drop(old.storage)
                bw.drop(out.storage)
                buffers[j] = total
            else:
                buffers[j] = out
            deps[j] -= 1
            if not deps[j]:
                heapq.heappush(ready, (-nodes[j].seq, j))
        for j in node.nexts[len(outs):]:
            if j is not None:  # a next that got no gradient (AccumulateGrad has none)
                deps[j] -= 1
                if not deps[j]:
                    heapq.heappush(ready, (-nodes[j].seq, j))
    bw.drop(ones)
    return ran


def live_peak(timeline: Timeline, optimizer: Peak | None, sgd: bool) -> Peak | None:
    """The step's peak from the backward's exact maximum and the optimizer step's (None: plain SGD, whose step
    allocates nothing): the larger, if the forward's and the loss's bounds lie strictly below it; where the forward
    and the loss are replayed exactly too (:attr:`Timeline.forward`), the largest of the four phases, the first of
    equal maxima (as ``LiveBytes`` keeps the first moment)."""
    back = Peak(timeline.backward, "backward", timeline.op, timeline.module, *_top(timeline.items))
    if optimizer is not None and optimizer.bytes is not None and optimizer.bytes > timeline.backward:
        best = optimizer
    elif optimizer is not None and optimizer.bytes is None and not sgd:
        return None
    else:
        best = back
    figure = best.bytes
    assert figure is not None
    # The bound on everything before the optimizer step: the forward's and the loss's, the backward's maximum.
    bound = max(timeline.forward_bound, timeline.loss_bound, timeline.backward)
    if timeline.forward is not None and timeline.loss is not None:
        for phase in (timeline.loss, timeline.forward):  # earlier phases win ties
            assert phase.bytes is not None
            if phase.bytes >= figure:
                best, figure = phase, phase.bytes
    elif max(timeline.forward_bound, timeline.loss_bound) >= figure:
        return None
    return Peak(figure, best.phase, best.op, best.module, best.items, best.by_kind, None, bound, None, figure, figure)


def _top(items: Sequence[Item]) -> tuple[tuple[Item, ...], dict[str, int]]:
    from .peak import TOP_ITEMS

    kinds: dict[str, int] = {}
    for i in items:
        kinds[i.kind] = kinds.get(i.kind, 0) + i.bytes
    top = sorted((i for i in items if i.bytes), key=lambda i: (-i.bytes, i.kind, i.name))[:TOP_ITEMS]
    return tuple(top), kinds
