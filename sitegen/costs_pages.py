"""Names for the two training-cost pages (training-step.md, why-costs-disagree.md).

Every figure of one training step comes from :mod:`calculator.costs`; this
module only runs the engine for a page and does the arithmetic other tools do
on the same figures (what they would print), so the pages can show it. Each
tool's rule is written once here, with the source it follows, and
tests/docs/test_costs_pages.py checks the results against the tools' own
code where it is installed (accelerate) or against hand arithmetic.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from calculator import costs, views
from calculator.model import Inventory

#: ``aten::layer_norm`` with a weight: fvcore's ``norm_flop_counter(2)`` counts 5 per input element.
FVCORE_LAYER_NORM = 5
#: calflops' ``compute_bp_factor`` default: the backward is taken as twice the forward.
CALFLOPS_BP_FACTOR = 2
#: The scaling-law rule: 2 FLOPs per parameter per token forward, 4 backward.
RULE_FACTOR = 6
#: DeepSpeed's profiler summary: the backward taken as this many forwards (plus ``recompute_fwd_factor``).
DEEPSPEED_BWD_FACTOR = 2
#: BERT's two index buffers, ``position_ids`` and ``token_type_ids``: int64 [1, max_position_embeddings]
#: each (``BertEmbeddings.__init__``). accelerate's estimator sizes buffers with the parameters.
BERT_INDEX_BUFFERS = 2
INT64_BYTES = 8
FP32_BYTES = 4


def training_step(inv: Inventory, batch: int, seq_len: int, dtype: str = "fp32", optimizer: str = "adamw",
                  checkpointing: bool | str = False, plan: Any = None, attention: str = "eager",
                  autocast: str | None = None) -> costs.Costs:
    """The engine's figures for one step (``python -m calculator ... --batch B --seq-len L``); ``checkpointing``
    True is non-reentrant (transformers' default), ``"reentrant"`` the other kind; ``attention`` "sdpa" is
    ``--attention sdpa``; ``autocast`` "bf16" is ``--mixed-precision bf16``."""
    return costs.compute(inv, costs.settings(batch, seq_len, dtype, optimizer, checkpointing, attention=attention,
                                             autocast=autocast), plan)


def attention_flops(inv: Inventory, batch: int, seq_len: int) -> int:
    """FLOPs of eager attention's two batched matmuls in the forward (QKᵀ and probabilities·V), all layers.

    Per layer each is 2·B·L·L·H (heads × head size = H): 4·L·H per token per layer.
    """
    c = inv.config
    return 4 * batch * seq_len * seq_len * c["hidden_size"] * c["num_hidden_layers"]


def layer_norms(inv: Inventory) -> int:
    """How many LayerNorm modules the class runs (each on a [B, L, H] tensor in BERT's classes)."""
    return sum(1 for t in inv.tensors if t.name.endswith("LayerNorm.weight"))


@dataclass(frozen=True)
class HfEstimate:
    """``accelerate estimate-memory``: the model's size and its "Training using Adam" stages."""

    total_size: int
    stages: dict[str, dict[str, int]]

    def column(self, dtype: str) -> int:
        """What the "Training using Adam" column prints: the largest stage, not their sum."""
        return max(self.stages[dtype].values())

    def stage_sum(self, dtype: str) -> int:
        return sum(self.stages[dtype].values())


def hf_estimate(inv: Inventory) -> HfEstimate:
    """accelerate's ``estimate_training_usage`` on the size of the model ``AutoModel`` builds (float32).

    The size is ``compute_module_sizes``: every parameter and buffer, here BERT's
    two int64 index buffers. float32 stages: model, gradients, optimizer (2×),
    step (4×); float16 (mixed precision): model, gradients (1.5×), optimizer (2×),
    step (= optimizer).
    """
    size = inv.total * FP32_BYTES + BERT_INDEX_BUFFERS * inv.config["max_position_embeddings"] * INT64_BYTES
    half = size // 2
    return HfEstimate(size, {
        "float32": {"model": size, "gradients": size, "optimizer": 2 * size, "step": 4 * size},
        "float16": {"model": size, "gradients": size + half, "optimizer": 2 * size, "step": 2 * size},
    })


@dataclass(frozen=True)
class ToolFigures:
    """What each tool would print for the forward (and its backward rule) of one step, from our figures."""

    fvcore_eager: int
    fvcore_sdpa: int
    deepspeed_macs_eager: int
    deepspeed_macs_sdpa: int
    thop_linear: int
    calflops_fwd_bwd: int
    rule_all: int
    rule_non_embedding: int


def tool_figures(inv: Inventory, step: costs.Costs, non_embedding: int) -> ToolFigures:
    """Arithmetic on the exact figures: each tool's unit and what it cannot see.

    * fvcore: a multiply-add is one flop; LayerNorm 5 per element; no handle for
      ``aten::scaled_dot_product_attention`` (transformers' default attention), so
      with it the attention matmuls drop out.
    * DeepSpeed's profiler: MACs of ``F.linear`` and ``torch.matmul`` (patched
      functions); the version read does not patch ``F.scaled_dot_product_attention``.
    * thop: forward hooks on modules: ``nn.Linear`` counts in_features × output
      elements; the attention's matmuls are not modules.
    * calflops: forward FLOPs × (1 + compute_bp_factor).
    * 6·N·D: N all parameters, or N without embeddings (the scaling-law paper's N).
    """
    s = step.settings
    tokens = s.batch * s.seq_len
    attention = attention_flops(inv, s.batch, s.seq_len)
    norms = FVCORE_LAYER_NORM * layer_norms(inv) * tokens * inv.config["hidden_size"]
    return ToolFigures(
        fvcore_eager=step.forward // 2 + norms,
        fvcore_sdpa=(step.forward - attention) // 2 + norms,
        deepspeed_macs_eager=step.forward // 2,
        deepspeed_macs_sdpa=(step.forward - attention) // 2,
        thop_linear=(step.forward - attention) // 2,
        calflops_fwd_bwd=step.forward * (1 + CALFLOPS_BP_FACTOR),
        rule_all=RULE_FACTOR * inv.total * tokens,
        rule_non_embedding=RULE_FACTOR * non_embedding * tokens,
    )


def context() -> dict[str, Any]:
    """The names these pages use (merged into :func:`sitegen.context.page_context`)."""
    return {
        "training_step": training_step,
        "gib": views.fmt_binary_bytes,  # binary units, as the CLI's and the panel's costs tables print them
        "attention_flops": attention_flops,
        "layer_norms": layer_norms,
        "hf_estimate": hf_estimate,
        "tool_figures": tool_figures,
        "cost_rules": {
            "fvcore_layer_norm": FVCORE_LAYER_NORM, "calflops_bp_factor": CALFLOPS_BP_FACTOR,
            "rule_factor": RULE_FACTOR, "deepspeed_bwd_factor": DEEPSPEED_BWD_FACTOR,
        },
    }
