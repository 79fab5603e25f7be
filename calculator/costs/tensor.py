"""A tensor as the cost simulator sees it, and ATen's rules for its layout.

The bottom layer of :mod:`calculator.costs`: shapes and strides only, no
operation, no family. ``view_strides`` is ATen's ``computeStride`` (when a
``view``/``reshape`` is free), ``_dense`` and ``_infer`` the checks the
simulator's copies and ``-1`` dimensions need. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

#: The int64 index tensors (``input_ids``, position and token-type ids) autograd keeps for an embedding's backward.
INDEX_BYTES = 8
#: peft's LoRA adapters are float32 whatever the model's dtype (``autocast_adapter_dtype=True``).
ADAPTER_BYTES = 4


@dataclass(frozen=True)
class T:
    """A tensor as the simulator sees it: shape, strides, which storage, whether it needs a gradient."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    storage: int
    grad: bool
    itemsize: int

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    out = []
    step = 1
    for d in reversed(shape):
        out.append(step)
        step *= max(d, 1)
    return tuple(reversed(out))



def dense_strides_like(t: T) -> tuple[int, ...]:
    """Contiguous strides in ``t``'s order of dimensions, largest stride outermost: how TensorIterator lays out a
    pointwise result (or a ``.to()`` copy) of a dense but permuted input, so that a later ``view`` of it copies
    where PyTorch's does."""
    order = sorted(range(len(t.shape)), key=lambda i: -t.strides[i])
    strides = [0] * len(t.shape)
    step = 1
    for i in reversed(order):
        strides[i] = step
        step *= max(t.shape[i], 1)
    return tuple(strides)

def is_contiguous(t: T) -> bool:
    """``Tensor.is_contiguous()``: dimensions of size 1 may have any stride; an empty tensor is contiguous whatever its
    strides (c10's ``_compute_contiguous``: X-MOD's zero-wide adapter under LoRA, hidden 1 halved)."""
    if 0 in t.shape:
        return True
    expected = 1
    for size, stride in zip(reversed(t.shape), reversed(t.strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def view_strides(shape: Sequence[int], strides: Sequence[int], new: Sequence[int]) -> tuple[int, ...] | None:
    """ATen's ``computeStride``: the strides of ``view(new)``, or None when only a copy can reshape it."""
    if not shape:
        return tuple(1 for _ in new)
    out = [0] * len(new)
    view_d = len(new) - 1
    chunk_base = strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[tensor_d]
        if tensor_d == 0 or (shape[tensor_d - 1] != 1 and strides[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * chunk_base
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(out)


def _dense(t: T) -> bool:
    """Whether ``t``'s strides are a permutation of a contiguous layout (no gaps, no overlap)."""
    order = sorted(range(len(t.shape)), key=lambda d: t.strides[d])
    expected = 1
    for d in order:
        if t.shape[d] != 1 and t.strides[d] != expected:
            return False
        expected *= t.shape[d]
    return True


def _infer(t: T, shape: Sequence[int]) -> tuple[int, ...]:
    """``-1`` worked out; a zero-sized known part (an ``nn.Linear(0, n)``, X-MOD's adapter when
    ``adapter_reduction_factor`` > H) leaves nothing to spread, so it is 0: the tensor is empty."""
    shape = tuple(shape)
    if -1 in shape:
        known = 1
        for d in shape:
            if d != -1:
                known *= d
        shape = tuple((t.numel // known if known else 0) if d == -1 else d for d in shape)
    return shape

