"""Cross-check the training step with SDPA attention (issue 32) against PyTorch, figure by figure.

For every family whose program models SDPA (``CostModel.sdpa``), a few random steps as
``test_costs_reference.py`` draws them (class, B, L, dtype, optimizer, checkpointing, LoRA or freezing), with
the attention dropout set to 0 and ``attn_implementation="sdpa"`` on both sides. The PyTorch side is
``costs_measure.measure``: the bytes of the distinct storages ``saved_tensors_hooks`` sees in the forward, the
parameters', gradients' and optimizer state's bytes, and FlopCounterMode's totals, with torch's own sdpa rules
(``torch.utils.flop_counter.sdpa_flop_count`` and ``sdpa_backward_flop_count``) **registered for the CPU
kernel** ``_scaled_dot_product_flash_attention_for_cpu`` and its backward through FlopCounterMode's
``custom_mapping`` (``costs_measure.cpu_sdpa_rules``): FlopCounterMode registers them for the CUDA kernels
only and counts 0 on CPU (tests/crosscheck/test_costs_sdpa_op.py). The test also checks that the kernel the
step runs is that flash kernel (the rules would not see a fallback to the math path).

The refusals are checked against transformers and PyTorch too: attention dropout > 0 (``costs_sdpa_dropout``)
makes PyTorch on CPU leave the flash kernel for its math path; a class without SDPA (``costs_no_sdpa``) is one
transformers will not build with ``attn_implementation="sdpa"``.
"""
from __future__ import annotations

import os
import random
import warnings
from typing import Any

import pytest

from calculator import costs, peft as planner
from calculator.build import build as engine_build
from calculator.costs.step import check_sdpa
from calculator.errors import CalcError
from calculator.families import FAMILIES

from .costs_measure import freeze, lora, make_model, measure
from .test_costs_reference import SEED, draw

pytest.importorskip("torch")

SDPA = tuple(mt for mt, f in FAMILIES.items() if f.costs is not None and f.costs.sdpa)
PER_FAMILY = int(os.environ.get("COSTS_SDPA_RANDOM", "4"))
FIGURES = ("forward", "backward", "weights", "gradients", "optimizer", "activations")


def sdpa_case(rng: random.Random, model_type: str) -> dict[str, Any]:
    """A drawn step with the attention dropout SDPA receives set to 0 (now and then the key left at a default
    of 0 where the family's is 0, ALBERT's)."""
    case = draw(rng, model_type)
    # Checkpointing both ways: non-reentrant (transformers 5.23's default, the CLI's --grad-checkpointing) or reentrant.
    case["reentrant"] = rng.random() < 0.5
    family = FAMILIES[model_type]
    for key in family.costs.sdpa_dropout:
        default = next((k.default for k in family.costs.keys if k.key == key), 0.1)
        if default == 0 and rng.random() < 0.5:
            case["raw"].pop(key, None)
        else:
            case["raw"][key] = 0.0
    return case


def engine(case: dict[str, Any]) -> tuple[Any, Any, costs.Costs]:
    inv = engine_build(case["raw"], case["arch"], case["pooler"])
    plan = None
    if case["plan"] == "freeze":
        plan = planner.freeze(inv, *case["freeze"])
    elif case["plan"] == "lora":
        o = case["lora"]
        plan = planner.lora_from_text(inv, o["r"], o["targets"], o["bias"], o["task_type"])
    mode = case["checkpointing"] and ("reentrant" if case.get("reentrant", True) else "non-reentrant")
    s = costs.settings(case["batch"], case["seq_len"], case["dtype"], case["optimizer"], mode, attention="sdpa")
    return inv, plan, costs.compute(inv, s, plan)


def pytorch(case: dict[str, Any], inv: Any, plan: Any) -> dict[str, int]:
    """The step measured in PyTorch with ``attn_implementation="sdpa"``, on one thread (tiny tensors)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        config = {k: v for k, v in case["raw"].items() if k not in ("model_type", "architectures")}
        model = make_model(inv.model_type, case["arch"], config, case["dtype"], case["pooler"], attention="sdpa")
        hf_model = model
        if case["plan"] == "freeze":
            freeze(model, *case["freeze"])
        elif case["plan"] == "lora":
            model = lora(model, plan.settings)
        return measure(model, hf_model, case["batch"], case["seq_len"], inv.config["vocab_size"], case["optimizer"],
                       case["checkpointing"], case.get("reentrant", True))
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize("model_type", SDPA)
def test_sdpa_step_matches_pytorch(model_type: str) -> None:
    """Every figure of a few random SDPA steps per family equals PyTorch's."""
    rng = random.Random(f"{SEED}-{model_type}-sdpa")
    failures, done, layered = [], 0, 0
    for _ in range(PER_FAMILY * 30):
        if done == PER_FAMILY:
            break
        case = sdpa_case(rng, model_type)
        try:
            inv, plan, got = engine(case)
        except CalcError:
            continue  # a config the eager cross-check refuses (and proves refused); redraw
        try:
            expected = pytorch(case, inv, plan)
        except ZeroDivisionError:
            # torch.optim.Adafactor divides by an empty parameter's size (MobileBERT's MLM head with E = H keeps a
            # [0, V] weight): PyTorch cannot run that step with eager attention either, an engine gap apart from SDPA.
            assert case["optimizer"] == "adafactor", case
            continue
        done += 1
        layered += inv.num_layers > 0
        figures = {k: getattr(got, k) for k in FIGURES}
        if figures != expected:
            failures.append((case, {k: (figures[k], expected[k]) for k in FIGURES if figures[k] != expected[k]}))
    assert done == PER_FAMILY, f"only {done} runnable cases drawn"
    assert layered, "no drawn case had an attention layer"
    assert not failures, "\n".join(f"{case!r}: {diff}" for case, diff in failures)


def test_the_step_runs_the_cpu_flash_kernel_and_its_flops_are_torchs_rules() -> None:
    """With dropout 0 the step calls ``_scaled_dot_product_flash_attention_for_cpu`` once per layer (what the
    registered rules count), and with dropout > 0 never (PyTorch's math path: what ``costs_sdpa_dropout``
    refuses); the engine's attention row is torch's ``sdpa_flop_count`` on the layer's shapes."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils.flop_counter import sdpa_backward_flop_count, sdpa_flop_count

    class Calls(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.names: list[str] = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.append(str(func.overloadpacket.__name__))
            return func(*args, **(kwargs or {}))

    raw = {"model_type": "bert", "vocab_size": 30, "hidden_size": 12, "num_attention_heads": 3,
           "num_hidden_layers": 2, "intermediate_size": 10, "max_position_embeddings": 16}
    kernel = "_scaled_dot_product_flash_attention_for_cpu"
    for p, calls in ((0.0, 2), (0.1, 0)):
        config = {**{k: v for k, v in raw.items() if k != "model_type"}, "attention_probs_dropout_prob": p}
        model = make_model("bert", "BertModel", config, "fp32", attention="sdpa")
        mode = Calls()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with mode:
                model(input_ids=torch.zeros((2, 5), dtype=torch.long))
        assert mode.names.count(kernel) == calls, p
        inv = engine_build({**raw, "attention_probs_dropout_prob": p}, "BertModel", None)
        if p > 0:
            with pytest.raises(CalcError) as caught:
                costs.compute(inv, costs.settings(2, 5, attention="sdpa"))
            assert caught.value.code == "costs_sdpa_dropout"
            continue
        sim, _ = costs.simulate(inv, costs.settings(2, 5, attention="sdpa"))
        rows = [r for r in sim.tape if r.op == kernel]
        shape = (2, 3, 5, 4)
        assert [(r.forward, r.backward) for r in rows] == [
            (sdpa_flop_count(shape, shape, shape), sdpa_backward_flop_count(shape, shape, shape, shape))] * 2


def test_sdpa_math_path_is_where_pytorch_leaves_the_kernel() -> None:
    """``costs_sdpa_math``: Nomic BERT with one-wide heads rotates Q and K into two columns (V keeps one), and
    PyTorch then runs SDPA's math path, never the flash kernel (what the engine models); refused."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    class Calls(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.names: list[str] = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.append(str(func.overloadpacket.__name__))
            return func(*args, **(kwargs or {}))

    for heads, refused in ((8, True), (4, False)):
        raw = {"model_type": "nomic_bert", "vocab_size": 30, "hidden_size": 8, "num_attention_heads": heads,
               "num_hidden_layers": 1, "intermediate_size": 10, "max_position_embeddings": 16}
        model = make_model("nomic_bert", "NomicBertModel", {k: v for k, v in raw.items() if k != "model_type"},
                           "fp32", attention="sdpa")
        mode = Calls()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with mode:
                model(input_ids=torch.zeros((1, 5), dtype=torch.long))
        assert ("_scaled_dot_product_flash_attention_for_cpu" in mode.names) is not refused, heads
        inv = engine_build(raw, "NomicBertModel", None)
        if refused:
            with pytest.raises(CalcError) as caught:
                costs.compute(inv, costs.settings(1, 5, attention="sdpa"))
            assert caught.value.code == "costs_sdpa_math"
        else:
            assert costs.compute(inv, costs.settings(1, 5, attention="sdpa")).backward > 0


def test_no_sdpa_is_a_class_transformers_builds_without_it() -> None:
    """``costs_no_sdpa`` for each family whose classes transformers 5.23 builds eager only: asked for sdpa,
    transformers refuses too (``_supports_sdpa`` False), and the engine names the class."""
    import transformers

    refused = [mt for mt, f in FAMILIES.items() if f.costs is not None and f.default_attention != "sdpa"]
    assert {"deberta-v2", "mpnet", "big_bird", "funnel"} <= set(refused)
    for mt in refused:
        family = FAMILIES[mt]
        arch = next(a.name for a in family.architectures
                    if family.costs.architectures is None or a.name in family.costs.architectures)
        inv = engine_build({"model_type": mt}, arch, None)
        with pytest.raises(CalcError) as caught:
            costs.compute(inv, costs.settings(1, 4, attention="sdpa"))
        assert caught.value.code == "costs_no_sdpa", mt
        assert arch in caught.value.message("en") and arch in caught.value.message("zh")
        assert not getattr(transformers, arch)._supports_sdpa, arch


def test_sdpa_families_are_the_classes_that_support_it() -> None:
    """A family whose program models SDPA is one whose classes transformers builds with SDPA (``_supports_sdpa``),
    and a family that supports SDPA but whose program does not model it is refused (``costs_sdpa_not_modelled``),
    never costed as eager."""
    import transformers

    for mt in SDPA:
        for a in FAMILIES[mt].architectures:
            assert getattr(transformers, a.name)._supports_sdpa, a.name
    pending = [mt for mt, f in FAMILIES.items() if f.costs is not None and f.default_attention == "sdpa"
               and not f.costs.sdpa]
    for mt in pending:
        family = FAMILIES[mt]
        arch = next(a.name for a in family.architectures
                    if family.costs.architectures is None or a.name in family.costs.architectures)
        inv = engine_build({"model_type": mt}, arch, None)
        with pytest.raises(CalcError):  # never a figure (another refusal of the config may come first: X-MOD's)
            costs.compute(inv, costs.settings(1, 4, attention="sdpa"))
        with pytest.raises(CalcError) as caught:
            check_sdpa(inv, family.costs)
        assert caught.value.code == "costs_sdpa_not_modelled", mt
        assert arch in caught.value.message("zh") and "bert" in caught.value.message("zh")
