"""What one training step costs, exactly: FLOPs of the forward and backward passes, and memory by component.

The step is the one issue 25 defines (and the cross-check measures in PyTorch):
the architecture's class built from the config with eager attention (or SDPA, ``Settings.attention``: attention
dropout 0, CPU's flash kernel, :meth:`Ops.sdpa`; refused where PyTorch would leave that kernel), cast to
``dtype`` (no autocast), in training mode (dropout as Hugging Face's defaults
configure it, p > 0); optionally the planner's LoRA or freezing
(:mod:`calculator.peft`); optionally gradient checkpointing
(``use_reentrant=False``, transformers 5.23's default, or ``True``); input ``input_ids`` of shape (B, L) only; loss = the
sum of every floating-point output's ``.float().sum()``; ``loss.backward()``;
one ``optimizer.step()`` over the trainable parameters.

* ``flops``: what ``torch.utils.flop_counter.FlopCounterMode`` counts, 2 per
  multiply-add, matmul-family operations only (``mm``, ``addmm``, ``bmm``);
  the recomputation of gradient checkpointing falls in the backward.
* ``memory.activations``: bytes of the distinct storages autograd saves during
  the forward pass (what ``saved_tensors_hooks`` sees), parameters' and
  buffers' storages left out.
* ``memory.peak`` / ``peak_at``: the peak of live memory (issue 32), given only
  where it is proven exact against PyTorch (:mod:`.peak`: the optimizer step when
  it provably exceeds the forward and the backward; :mod:`.lifetime`: the backward
  op by op for the families whose program opts in), else None with a coded note;
  :mod:`.fit` searches the largest batch and length whose peak fits a budget.

Why a small simulator and not one polynomial: which tensors autograd keeps
depends on which inputs need a gradient (a frozen Linear keeps no input, a
Linear whose input needs no gradient keeps no weight), and whether a
``reshape`` copies depends on strides (a batch of one, or one head, makes the
attention's reshapes free views). Each family declares its forward pass as a
short program over the operations below (:attr:`Family.costs`), in the order
its ``modeling_*.py`` runs them; :class:`Sim` applies PyTorch's own rules for
each operation (``derivatives.yaml``: what each backward formula needs;
``computeStride``: when a reshape is a view) and adds up. For a plain
fine-tuning run the totals reduce to the closed forms the unit tests spell out.

Standard library only (the page runs it in Pyodide).

The package's layers, each importing only those before it in this list and
none of them the families (tests/properties/test_layering.py): :mod:`.tensor`
(a tensor's shape and strides, ATen's view rule), :mod:`.declare` (what a
family declares: :class:`CostModel`, its step keys and their values),
:mod:`.ops` (one method per aten operation, FLOPs and what autograd keeps,
recorded on a tape), :mod:`.peak` (the peak of live memory: the optimizer step exactly, the
rest bounded; imports only :mod:`.tensor`), :mod:`.modules` (:class:`Sim`: modules by their inventory
names, LoRA, checkpointing; what the family programs drive), :mod:`.lifetime` (the peak op by op: the
simulator recording autograd's nodes, the backward replayed node by node), :mod:`.step`
(settings, the parameters' and the optimizer's bytes, :func:`compute`: the
layer above the families), :mod:`.inference` (the inference span: one forward under no_grad). This module re-exports their names, so ``from
calculator import costs`` and ``from ..costs import Sim`` keep working.
"""

from __future__ import annotations

import importlib
from typing import Any

from .declare import (BERT_KEYS, CostModel, StepKey, activation_key, check_step_keys, classifier_dropout,
                      dropouts, flag_key, no_buffers, position_buffers, position_ids_buffer, read_step_keys, size_key, step_parse, step_query,
                      step_value, unread)
from .tensor import ADAPTER_BYTES, INDEX_BYTES, T, contiguous_strides, is_contiguous, view_strides

#: The engine's names, by the module that defines them, imported on first use (:func:`__getattr__`): a family
#: module imports this package for its declarations (:mod:`.declare`, :mod:`.tensor`) when the page's default
#: answer, which counts parameters only, imports the family; the simulator, the peak and the step (~200 ms of
#: Pyodide's CPU before the first answer, mostly their dataclasses) wait until a step is costed (issue 31).
_ENGINE: dict[str, tuple[str, ...]] = {
    "modules": ("LinearInfo", "Sim"),
    "ops": ("Ops", "Row"),
    "peak": ("Item", "Peak"),
    "step": ("ATTENTIONS", "DTYPES", "MAX_BATCH", "MAX_FIGURE", "MAX_SEQ_LEN", "OPTIMIZERS", "CHECKPOINTING_MODES",
             "SETTING_NAMES", "STEP_BYTES", "Costs", "Param", "Settings", "_positive", "checkpointing_mode", "compute",
             "cost_model", "optimizer_bytes", "settings", "simulate", "supported"),
    "inference": ("InferenceCosts", "compute_inference"),
}
_HOME = {name: module for module, names in _ENGINE.items() for name in names}


def __getattr__(name: str) -> Any:
    """``costs.Sim``, ``from ..costs import compute``: the engine's module imported on first use (PEP 562), its
    name then kept here, so later lookups are plain attribute reads."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "ADAPTER_BYTES", "ATTENTIONS", "BERT_KEYS", "DTYPES", "INDEX_BYTES", "MAX_BATCH", "MAX_FIGURE", "MAX_SEQ_LEN", "OPTIMIZERS",
    "CHECKPOINTING_MODES", "SETTING_NAMES", "STEP_BYTES", "CostModel", "Costs", "LinearInfo", "Ops", "Param", "Row", "Settings", "Sim", "StepKey", "T",
    "_positive", "activation_key", "check_step_keys", "checkpointing_mode", "classifier_dropout", "compute", "contiguous_strides",
    "cost_model", "dropouts", "flag_key", "is_contiguous", "optimizer_bytes", "read_step_keys", "settings", "simulate", "size_key", "step_parse",
    "step_query", "step_value", "supported", "unread", "view_strides", "Item", "Peak", "position_buffers", "position_ids_buffer", "no_buffers",
    "InferenceCosts", "compute_inference",
]
