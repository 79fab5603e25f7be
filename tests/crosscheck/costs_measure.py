"""The independent side of the training-step cross-check: one step measured in PyTorch itself.

Everything here is issue 25's definition, run: the class built from the config with
eager attention (or SDPA, issue 32: torch's sdpa FLOP rules registered for the CPU kernel, :func:`cpu_sdpa_rules`), cast to the dtype, in training mode; optionally peft's LoRA or
freezing by ``requires_grad_(False)``; optionally gradient checkpointing
(``use_reentrant`` False, transformers 5.23's default, or True, as the case says); ``input_ids`` (B, L) only; the loss is the sum of every
floating-point output's ``.float().sum()``; one optimizer step. Nothing comes from
``calculator``.
"""
from __future__ import annotations

import warnings
from typing import Any

DTYPES = {"fp32": "float32", "bf16": "bfloat16"}


def make_model(model_type: str, architecture: str, config: dict[str, Any], dtype: str, pooler: bool | None = None,
               attention: str = "eager"):
    """The class built from ``config`` with ``attn_implementation=attention`` (issue 32: "sdpa" as well), cast,
    in training mode."""
    import torch
    import transformers

    torch.manual_seed(0)
    cfg = transformers.AutoConfig.for_model(model_type, **config)
    cls = getattr(transformers, architecture)
    kwargs = {} if pooler is None else {"add_pooling_layer": pooler}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg._attn_implementation = attention
        model = cls(cfg, **kwargs)
    assert model.config._attn_implementation == attention, (architecture, model.config._attn_implementation)
    model.to(getattr(torch, DTYPES[dtype]))
    model.train()
    return model


def freeze(model, embeddings: bool, layers: int, all_but_head: bool) -> None:
    """``requires_grad_(False)`` on what a reader freezes by hand."""
    import torch

    base = model.base_model
    if all_but_head:
        base.requires_grad_(False)
        if base is not model and isinstance(getattr(model, "pooler", None), torch.nn.Module):
            model.pooler.requires_grad_(False)  # DeBERTa's ContextPooler: the planner's body, not its head
    if hasattr(base, "text_model"):  # ModernVBERT, UltraVBERT: the vision tower and the connector are embeddings
        if embeddings:
            base.vision_model.requires_grad_(False)
            base.connector.requires_grad_(False)
        base = base.text_model
    if embeddings and hasattr(base, "embed_tokens"):  # Llama-style bodies (EuroBERT, ESM C): a bare table
        base.embed_tokens.requires_grad_(False)
        for name in ("value_embeddings", "patch_embeddings"):  # NeoMME's other token table and its image stem
            if isinstance(getattr(base, name, None), torch.nn.Module):
                getattr(base, name).requires_grad_(False)
    elif embeddings and hasattr(base, "embeddings"):  # the embedding layer with its projection to the hidden size (ELECTRA, ALBERT)
        base.embeddings.requires_grad_(False)
        for name in ("embeddings_project", "encoder.embedding_hidden_mapping_in"):
            module = base.get_submodule(name) if _has(base, name) else None
            if module is not None:
                module.requires_grad_(False)
    if hasattr(base, "encoder") and hasattr(base.encoder, "self_attends"):  # Perceiver: latents, cross, self-attends
        if all_but_head and getattr(base, "decoder", None) is not None:
            base.decoder.requires_grad_(True)  # the decoder is the head (the planner's), not the body
        if embeddings:
            base.embeddings.requires_grad_(False)
            if base.input_preprocessor is not None:
                base.input_preprocessor.requires_grad_(False)
        for layer in [base.encoder.cross_attention, *base.encoder.self_attends][:layers]:
            layer.requires_grad_(False)
        return
    if hasattr(base, "encoder") and hasattr(base.encoder, "block"):  # T5's encoder classes: the shared table
        if embeddings:
            base.shared.requires_grad_(False)
        blocks = base.encoder.block
    elif hasattr(base, "attentions"):  # XLM, FlauBERT: a layer is the i-th module of four ModuleLists
        if embeddings:
            for name in ("position_embeddings", "lang_embeddings", "layer_norm_emb"):
                if hasattr(base, name):
                    getattr(base, name).requires_grad_(False)
        blocks = [torch.nn.ModuleList([base.attentions[i], base.layer_norm1[i], base.ffns[i], base.layer_norm2[i]])
                  for i in range(len(base.attentions))]
    elif hasattr(base, "transformer"):
        blocks = base.transformer.layer  # DistilBERT
    elif hasattr(base, "layers"):
        blocks = base.layers  # ModernBERT, Nomic BERT: no encoder module
    elif hasattr(base.encoder, "blocks"):  # Funnel: the blocks' layers in order, then the decoder's
        decoder = list(base.decoder.layers) if hasattr(base, "decoder") else []
        blocks = [layer for block in base.encoder.blocks for layer in block] + decoder
    elif hasattr(base.encoder, "layers"):
        blocks = base.encoder.layers  # SqueezeBERT
    elif hasattr(base.encoder, "albert_layer_groups"):
        blocks = base.encoder.albert_layer_groups  # ALBERT: a block is a shared group
    else:
        blocks = base.encoder.layer
    for layer in blocks[:layers]:
        layer.requires_grad_(False)


def _has(module, name: str) -> bool:
    try:
        module.get_submodule(name)
    except AttributeError:
        return False
    return True


def lora(model, settings: dict[str, Any]):
    from peft import LoraConfig, get_peft_model

    targets = settings["target_modules"]
    config = LoraConfig(
        r=settings["r"], target_modules=list(targets) if isinstance(targets, list) else targets,
        bias=settings["bias"], task_type=settings["task_type"],
        modules_to_save=list(settings["modules_to_save"]) if settings["modules_to_save"] else None,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return get_peft_model(model, config)


class _GlobalOnly:
    """A stand-in for FlopCounterMode's ModuleTracker that attributes every count to "Global" only.

    ConvBERT's separable convolution reads ``hidden_states.transpose(1, 2)`` likewise.
    FlopCounterMode adds each operation's FLOPs to every module in
    ``mod_tracker.parents``, which always holds "Global", and ``get_total_flops()``
    reads "Global": the totals are the same with or without the per-module
    attribution. The tracker itself fails under reentrant checkpointing when a
    module receives a view made in no-grad mode (Longformer's projections read
    ``hidden_states.transpose(0, 1)``): its hook asks that view for a grad_fn it
    does not have ("Expected gradient function to be set"), though training runs.
    """

    parents = frozenset({"Global"})

    def __enter__(self):
        return self

    def __exit__(self, *args):
        return None


def _cpu_sdpa_flop(query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs) -> int:
    from torch.utils.flop_counter import sdpa_flop_count

    return sdpa_flop_count(query_shape, key_shape, value_shape)


def _cpu_sdpa_backward_flop(grad_out_shape, query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs) -> int:
    from torch.utils.flop_counter import sdpa_backward_flop_count

    return sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape)


def cpu_sdpa_rules() -> dict[Any, Any]:
    """torch.utils.flop_counter's own sdpa rules (``sdpa_flop_count``, ``sdpa_backward_flop_count``) registered
    for the CPU flash kernel and its backward, whose arguments start as the CUDA kernels' do (query, key,
    value; grad_out, query, key, value). FlopCounterMode registers them for the CUDA kernels only, so without
    this it counts 0 for SDPA on CPU (tests/crosscheck/test_costs_sdpa_op.py); eager steps never call these ops."""
    import torch

    aten = torch.ops.aten
    return {aten._scaled_dot_product_flash_attention_for_cpu: _cpu_sdpa_flop,
            aten._scaled_dot_product_flash_attention_for_cpu_backward: _cpu_sdpa_backward_flop}


def flop_counter(checkpointing: bool):
    """FlopCounterMode with torch's sdpa rules registered for the CPU kernel too (:func:`cpu_sdpa_rules`); under
    checkpointing with its module tracker replaced (same totals, see _GlobalOnly)."""
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False, custom_mapping=cpu_sdpa_rules())
    if checkpointing:
        counter.mod_tracker = _GlobalOnly()
    return counter


def measure(model, hf_model, batch: int, seq_len: int, vocab: int, optimizer: str, checkpointing: bool,
            reentrant: bool = True, autocast: str | None = None) -> dict[str, int]:
    """Run one step of ``model`` (``hf_model`` is the transformers model inside it) and measure every figure;
    ``reentrant``: checkpointing's ``use_reentrant`` (transformers 5.23's default is False, issue 35 H3);
    ``autocast``: "bf16" runs the forward (only) under ``torch.autocast("cpu", dtype=torch.bfloat16)``, as
    Trainer(bf16=True) does, the model left in float32; the loss and the backward outside it."""
    import contextlib

    import torch

    region = torch.autocast("cpu", dtype=torch.bfloat16) if autocast == "bf16" else contextlib.nullcontext()

    if checkpointing:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hf_model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": reentrant})
    ids = torch.randint(0, vocab, (batch, seq_len))
    # The parameters and buffers themselves held for the whole step: I-BERT's QuantAct replaces its buffers in the
    # forward (self.x_min = ...), and an activation allocated at a freed buffer's address would be left out.
    own_tensors = [*model.parameters(), *model.buffers()]
    own = {t.untyped_storage().data_ptr() for t in own_tensors}
    saved: dict[int, int] = {}
    # Hold every saved storage until the end: a part of the graph no output depends on (DeBERTa's relative
    # table when no relative term reads it) is freed at once, and its address reused would be counted once.
    held = []

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in own:
            saved[storage.data_ptr()] = storage.nbytes()
            held.append(storage)
        return t

    # Reformer's reversible layers rerun their forward by hand in the backward (``backward_pass``), on inputs
    # made to require a gradient there: the module tracker fails on them as under checkpointing (same totals).
    rerun = checkpointing or any(hasattr(m, "backward_pass") for m in model.modules())
    counter = flop_counter(rerun)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with counter, torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), region:
            out = model(input_ids=ids)
    forward = counter.get_total_flops()
    values = out.to_tuple() if hasattr(out, "to_tuple") else tuple(out)
    loss = sum(v.float().sum() for v in values if torch.is_tensor(v) and v.is_floating_point())
    counter = flop_counter(rerun)
    with counter:
        loss.backward()
    backward = counter.get_total_flops()
    params = list(model.parameters())
    trainable = [p for p in params if p.requires_grad]
    opt = {
        "adamw": lambda: torch.optim.AdamW(trainable),
        "sgd": lambda: torch.optim.SGD(trainable, lr=0.01),
        "sgd-momentum": lambda: torch.optim.SGD(trainable, lr=0.01, momentum=0.9),
        "adafactor": lambda: torch.optim.Adafactor(trainable),
    }[optimizer]()
    opt.step()
    state = sum(v.nbytes for s in opt.state.values() for v in s.values() if torch.is_tensor(v))
    return {
        "forward": int(forward),
        "backward": int(backward),
        "weights": sum(p.nbytes for p in params),
        "gradients": sum(p.grad.nbytes for p in trainable if p.grad is not None),
        "optimizer": int(state),
        "activations": sum(saved.values()),
    }
