"""Build a Hugging Face transformers model from a config dict and describe its tensors.

This is the *independent* side of the cross-check: everything here comes from
the framework (built from the config on PyTorch's meta device, nothing downloaded), never from ``calculator``.
"""
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class FrameworkTensor:
    name: str
    shape: tuple[int, ...]
    tied_to: str | None
    trainable: bool
    #: "linear", "embedding" or "conv1d" when the module holding it is an nn.Linear / nn.Embedding / nn.Conv1d, else "".
    module: str = ""


@dataclass(frozen=True)
class FrameworkModel:
    tensors: list[FrameworkTensor]
    total: int
    trainable: int
    state_dict_total: int


@contextmanager
def _no_values_to_initialize() -> Iterator[None]:
    """PyTorch's ``torch.nn.init`` functions left out while a model is built on the meta device.

    A meta tensor has a shape and no values, so an initializer changes nothing on it; yet
    PyTorch still runs each ``uniform_`` or ``normal_`` a module's ``reset_parameters``
    calls, through Python decompositions: ~40 % of building one of the crosscheck's tiny
    random models (24 ms a config on average over the families, 14 ms without).
    transformers itself skips its own ``initialize_weights`` on the meta device and leaves
    these functions out when it loads a checkpoint (``no_init_weights``); the lists below
    are its own. Names, shapes, ties, ``requires_grad`` and module kinds come from the
    modules' constructors and ``tie_weights``, which run unchanged. Each initializer
    returns its tensor, as PyTorch's do.
    """
    from transformers.initialization import TORCH_INIT_FUNCTIONS, TORCH_MODULES_TO_PATCH

    def unchanged(tensor, *args, **kwargs):
        return tensor

    replaced = []
    try:
        for module_name in TORCH_MODULES_TO_PATCH:
            module = sys.modules.get(module_name)
            for name in TORCH_INIT_FUNCTIONS:
                if module is not None and hasattr(module, name):
                    replaced.append((module, name, getattr(module, name)))
                    setattr(module, name, unchanged)
        yield
    finally:
        for module, name, original in reversed(replaced):
            setattr(module, name, original)


def build(model_type: str, architecture: str, config: dict, **model_kwargs):
    """The model transformers builds from ``config``, on the meta device: every tensor, no values."""
    import torch
    import transformers

    config_cls = transformers.AutoConfig.for_model(model_type).__class__
    cfg = config_cls(**config)
    cls = getattr(transformers, architecture)
    with torch.device("meta"), _no_values_to_initialize():
        model = cls(cfg, **model_kwargs)
    return model


def describe(model) -> FrameworkModel:
    """Names/shapes in state_dict order; tied_to = first state_dict name sharing the Parameter."""
    import torch.nn as nn

    params = dict(model.named_parameters(remove_duplicate=False))
    modules = dict(model.named_modules(remove_duplicate=False))

    def kind(name: str) -> str:
        module = modules.get(name.rpartition(".")[0])
        if isinstance(module, nn.Conv1d):  # SqueezeBERT's and ConvBERT's convolutions: LoRA adapts them differently
            return "conv1d"
        return "linear" if isinstance(module, nn.Linear) else "embedding" if isinstance(module, nn.Embedding) else ""

    first_name_of: dict[int, str] = {}
    tensors: list[FrameworkTensor] = []
    for name, value in model.state_dict(keep_vars=True).items():
        key = id(value)
        tied = first_name_of.get(key)
        if tied is None:
            first_name_of[key] = name
        trainable = bool(getattr(params.get(name), "requires_grad", False)) if name in params else False
        tensors.append(FrameworkTensor(name, tuple(value.shape), tied, trainable, kind(name)))
    unique = list(model.parameters())
    return FrameworkModel(
        tensors=tensors,
        total=sum(p.numel() for p in unique),
        trainable=sum(p.numel() for p in unique if p.requires_grad),
        state_dict_total=sum(v.numel() for v in model.state_dict().values()),
    )
