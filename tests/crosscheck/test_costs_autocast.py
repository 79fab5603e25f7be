"""Cross-check the training step under mixed precision (issue 32) against PyTorch, figure by figure.

The step is test_costs_reference.py's, with the model left in float32 and its forward (only) run under
``torch.autocast("cpu", dtype=torch.bfloat16)``, as Trainer(bf16=True) runs it: the loss's ``.float().sum()``
and the backward outside. Each family the engine declares checked under autocast (``CostModel.autocast``)
draws random configs, classes, B, L, optimizers, checkpointing and plans (none, freezing, LoRA) as the
reference cross-check does; every figure must equal PyTorch's: FlopCounterMode's forward and backward, the
parameters', gradients' and optimizer state's bytes, and the distinct storages ``saved_tensors_hooks`` sees in
the forward (the bf16 copies autocast makes of activations and of weights included; the parameters' own
storages left out). A family not declared is refused (``costs_autocast_family``), checked here too.
"""
from __future__ import annotations

import os
import random

import pytest

from calculator import costs
from calculator.errors import CalcError
from calculator.families import FAMILIES

from .costs_measure import freeze, lora, make_model, measure
from .test_costs_reference import draw, planned, vocab_of

pytest.importorskip("torch")

CHECKED = tuple(mt for mt, f in FAMILIES.items() if f.costs is not None and f.costs.autocast)
#: Families some of whose configs PyTorch cannot run under autocast (``CostModel.autocast_fails``): their refusal
#: (``costs_forward_fails``, key ``mixed_precision``) proven per draw by test_autocast_refusal_is_a_step_pytorch_cannot_run.
FAILING = tuple(mt for mt, f in FAMILIES.items() if f.costs is not None and f.costs.autocast_fails is not None)
REFUSED = tuple(mt for mt, f in FAMILIES.items() if f.costs is not None and not f.costs.autocast and mt not in FAILING)
#: What PyTorch raises, per family declaring ``autocast_fails`` (the message transformers 5.23's forward raises with).
RAISES = {"deberta": "BFloat16 without overflow", "xmod": "Index put requires the source and destination dtypes match"}
PER_FAMILY = int(os.environ.get("COSTS_AUTOCAST_RANDOM", "10"))
SEED = int(os.environ.get("CROSSCHECK_SEED", "20261125"))
#: Refusals that only mean "draw again" (a plan that trains nothing, LoRA on nothing...).
REDRAW = ("costs_nothing_trainable", "lora_target_missing", "lora_target_saved", "lora_targets_required",
          "lora_no_linear", "lora_conv_groups", "lora_target_unsupported", "freeze_layers", "costs_funnel_short")


#: Families whose non-reentrant step under autocast is not drawn: none since main's early stop counts packs
#: (ultrabert's and esmc's non-reentrant steps, open on this branch before, are exact on main without autocast).
NON_REENTRANT_OPEN: tuple[str, ...] = ()


def engine_side(case):
    inv, plan = planned(case)
    mode = case["checkpointing"] and ("reentrant" if case.get("reentrant", True) else "non-reentrant")
    s = costs.settings(case["batch"], case["seq_len"], "fp32", case["optimizer"], mode, autocast="bf16")
    return inv, plan, costs.compute(inv, s, plan)


def torch_side(case, inv, plan) -> dict[str, int]:
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        config = {k: v for k, v in case["raw"].items() if k not in ("model_type", "architectures")}
        model = make_model(inv.model_type, case["arch"], config, "fp32", case["pooler"])
        hf_model = model
        if case["plan"] == "freeze":
            freeze(model, *case["freeze"])
        elif case["plan"] == "lora":
            model = lora(model, plan.settings)
        return measure(model, hf_model, case["batch"], case["seq_len"], vocab_of(inv), case["optimizer"],
                       case["checkpointing"], case.get("reentrant", True), autocast="bf16")
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize(("model_type", "index"), [(mt, i) for mt in CHECKED for i in range(PER_FAMILY)])
def test_autocast_step_matches_pytorch(model_type: str, index: int) -> None:
    rng = random.Random(f"{SEED}-{model_type}-autocast-{index}")
    for _ in range(300):  # many draws hold a step value the program refuses (checked by the reference test)
        case = draw(rng, model_type)
        try:
            inv, plan, got = engine_side(case)
        except CalcError as exc:
            if exc.code in REDRAW or exc.code.startswith("costs_") and exc.code not in ("costs_autocast_family",):
                continue  # refusals without autocast are test_costs_reference.py's to check against PyTorch
            raise
        break
    else:
        pytest.fail("no runnable case drawn")
    if case["checkpointing"] and model_type not in NON_REENTRANT_OPEN and rng.random() < 0.5:
        # transformers 5.23's default, use_reentrant=False, half the time
        case["reentrant"] = False
        inv, plan, got = engine_side(case)
    expected = torch_side(case, inv, plan)
    figures = {
        "forward": got.forward, "backward": got.backward, "weights": got.weights, "gradients": got.gradients,
        "optimizer": got.optimizer, "activations": got.activations,
    }
    assert figures == expected, case


def test_every_family_is_checked_under_autocast_or_proven_to_fail() -> None:
    """Every family with costs is cross-checked under bf16 autocast (``CostModel.autocast``) or declares the configs
    PyTorch cannot run there (``autocast_fails``, proven below): none is left refused as "not checked yet" (the
    refusal itself: tests/unit/test_costs_autocast.py, on a cost model marked unchecked)."""
    assert REFUSED == (), REFUSED
    assert set(FAILING) <= set(RAISES), FAILING


@pytest.mark.parametrize("model_type", FAILING)
def test_autocast_refusal_is_a_step_pytorch_cannot_run(model_type: str) -> None:
    """A config the engine refuses under bf16 autocast as a forward PyTorch cannot run (``CostModel.autocast_fails``:
    DeBERTa's float32 minimum written into bf16 scores, X-MOD's bf16 adapter output put into a float32 tensor) is
    one: drawn configs, classes, plans and checkpointing, the training step refused and PyTorch's step raising, the
    inference pass refused too and PyTorch's (``eval``, ``no_grad``) raising. A drawn config the declaration spares
    (DeBERTa without layers) is not refused that way: PyTorch runs it."""
    import torch

    rng = random.Random(f"{SEED}-{model_type}-autocast-fails")
    proven = spared = 0
    for _ in range(60):
        case = draw(rng, model_type)
        try:
            inv, plan = planned(case)
        except CalcError:
            continue  # a plan that trains nothing, LoRA on nothing: no step either way
        s = costs.settings(case["batch"], case["seq_len"], "fp32", "adamw", False, autocast="bf16")
        try:
            costs.compute(inv, s, plan)
        except CalcError as exc:
            if (exc.code, exc.params.get("key")) != ("costs_forward_fails", "mixed_precision"):
                continue  # the config's own refusals, checked without autocast by test_costs_reference.py
        else:
            spared += 1
            assert not FAMILIES[model_type].costs.autocast_fails(inv.config), case
            continue
        with pytest.raises(CalcError) as caught:
            costs.compute_inference(inv, costs.settings(case["batch"], case["seq_len"], autocast="bf16"))
        assert (caught.value.code, caught.value.params["key"]) == ("costs_forward_fails", "mixed_precision")
        case["optimizer"] = "adamw"
        with pytest.raises(RuntimeError, match=RAISES[model_type]):
            torch_side(case, inv, plan)
        if not proven:
            config = {k: v for k, v in case["raw"].items() if k not in ("model_type", "architectures")}
            model = make_model(inv.model_type, case["arch"], config, "fp32", case["pooler"]).eval()
            ids = torch.zeros((case["batch"], case["seq_len"]), dtype=torch.long)
            with (pytest.raises(RuntimeError, match=RAISES[model_type]), torch.no_grad(),
                  torch.autocast("cpu", dtype=torch.bfloat16)):
                model(input_ids=ids)
        proven += 1
        if proven == 2:
            break
    assert proven == 2, (proven, spared)


def costs_inventory(model_type: str):
    from calculator.build import build

    family = FAMILIES[model_type]
    arch = next(a.name for a in family.architectures
                if family.costs.architectures is None or a.name in family.costs.architectures)
    return build({"model_type": model_type}, arch)


def test_big_bird_block_sparse_under_autocast_is_a_step_pytorch_cannot_run() -> None:
    """BigBird's block-sparse attention under bf16 autocast: the context times the float32 ``from_mask`` is float32,
    the block probabilities bf16, and the probability matrix's ``scatter_`` of one into the other's dtype raises in
    transformers 5.23. The engine refuses it (``costs_forward_fails``, key ``mixed_precision``), training and
    inference; at a length where transformers switches to full attention it costs the step as PyTorch measures it."""
    import torch

    from calculator.build import build

    from .test_costs_reference import TINY_BIG_BIRD

    config = {k: v for k, v in TINY_BIG_BIRD.items() if k != "model_type"}
    inv = build(dict(TINY_BIG_BIRD), "BigBirdModel")
    for compute, s in ((costs.compute, costs.settings(2, 17, "fp32", "sgd", False, autocast="bf16")),
                       (costs.compute_inference, costs.settings(2, 17, autocast="bf16"))):
        with pytest.raises(CalcError) as caught:
            compute(inv, s)
        assert (caught.value.code, caught.value.params["key"]) == ("costs_forward_fails", "mixed_precision")
    model = make_model("big_bird", "BigBirdModel", config, "fp32")
    with pytest.raises(RuntimeError, match="scatter"), torch.autocast("cpu", dtype=torch.bfloat16):
        model(input_ids=torch.zeros((2, 17), dtype=torch.long))
    model.eval()
    with pytest.raises(RuntimeError, match="scatter"), torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        model(input_ids=torch.zeros((2, 17), dtype=torch.long))
    case = {"raw": dict(TINY_BIG_BIRD), "arch": "BigBirdModel", "pooler": None, "batch": 2, "seq_len": 9,
            "dtype": "fp32", "optimizer": "sgd", "checkpointing": False, "plan": "none"}
    inv, plan, got = engine_side(case)  # L 9 ≤ (5 + 2·1)·2 = 14: transformers runs original_full
    expected = torch_side(case, inv, plan)
    assert (got.forward, got.backward, got.activations) == tuple(expected[k] for k in ("forward", "backward", "activations"))
