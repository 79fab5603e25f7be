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

Attention dropout > 0 (issue 35, reader H1): PyTorch on CPU then leaves the flash kernel for its math path, which
keeps the probabilities and a dropout mask; a GPU's fused kernels apply the dropout inside and keep no mask, only a
random-number state (checked here on PyTorch's own meta kernels and autograd nodes for
``_scaled_dot_product_flash_attention`` and ``_scaled_dot_product_efficient_attention``). The step is then the fused
kernel's with attention dropout 0, every other dropout as configured, proven equal to PyTorch's step with
``dropout_p`` forced to 0 in ``scaled_dot_product_attention`` alone (:func:`attention_dropout_0`).

A class without SDPA (``costs_no_sdpa``) is one transformers will not build with ``attn_implementation="sdpa"``.
"""
from __future__ import annotations

import contextlib
import os
import random
import warnings
from typing import Any, Callable

import pytest

from calculator import costs, peft as planner
from calculator.build import build as engine_build
from calculator.costs.step import check_sdpa
from calculator.errors import CalcError
from calculator.families import FAMILIES

from .costs_measure import freeze, lora, make_model, measure
from .test_costs_reference import SEED, draw, vocab_of

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
        where, name = dropout_key(model_type, case["raw"], key)
        if default == 0 and rng.random() < 0.5:
            where.pop(name, None)
        else:
            where[name] = 0.0
    return case


def dropout_key(model_type: str, raw: dict[str, Any], key: str) -> tuple[dict[str, Any], str]:
    """Where the drawn config holds a step key: at the top level, or in the sub-config a composite nests it in
    (ModernVBERT's ``text_attention_dropout`` is ``text_config["attention_dropout"]``)."""
    spec = next((k for k in FAMILIES[model_type].costs.keys if k.key == key), None)
    if spec is not None and spec.nested is not None:
        return raw.setdefault(spec.nested[0], {}), spec.nested[1]
    return raw, key


def sdpa_dropout_case(rng: random.Random, model_type: str) -> dict[str, Any]:
    """A drawn step (as :func:`sdpa_case`) with every attention dropout SDPA receives > 0."""
    case = sdpa_case(rng, model_type)
    for key in FAMILIES[model_type].costs.sdpa_dropout:
        where, name = dropout_key(model_type, case["raw"], key)
        where[name] = rng.choice((0.1, 0.25, 0.5))
    return case


@contextlib.contextmanager
def attention_dropout_0():
    """``torch.nn.functional.scaled_dot_product_attention`` with ``dropout_p`` 0 whatever the model passes: the
    fused kernel with attention dropout 0, every other dropout (hidden, ModernBERT's output dropout...) as the
    config sets it. transformers' ``sdpa_attention_forward`` looks the function up at each call."""
    import torch

    original = torch.nn.functional.scaled_dot_product_attention

    def fused(*args: Any, **kwargs: Any) -> Any:
        if len(args) > 4:  # query, key, value, attn_mask, dropout_p given by position
            args = (*args[:4], 0.0, *args[5:])
        else:
            kwargs["dropout_p"] = 0.0
        return original(*args, **kwargs)

    torch.nn.functional.scaled_dot_product_attention = fused
    try:
        yield
    finally:
        torch.nn.functional.scaled_dot_product_attention = original


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
        return measure(model, hf_model, case["batch"], case["seq_len"], vocab_of(inv), case["optimizer"],
                       case["checkpointing"], case.get("reentrant", True))
    finally:
        torch.set_num_threads(threads)


def compared(draw: Callable[[], dict[str, Any]], wanted: int, measured: Callable[..., dict[str, int]] | None = None
             ) -> tuple[list[tuple[dict[str, Any], Any, costs.Costs]], list[Any]]:
    """Up to ``wanted`` runnable drawn cases (``draw``; at most 30 draws a case), each costed by the engine and
    measured by PyTorch (``measured``, default :func:`pytorch`): the cases run (case, inventory, the engine's
    costs) and the mismatches (case, {figure: (engine, PyTorch)}). A draw the engine refuses is redrawn (the eager
    cross-check proves those refusals); so is Adafactor on an empty parameter, which PyTorch cannot step
    (``torch.optim.Adafactor`` divides by its size: MobileBERT's MLM head with E = H keeps a [0, V] weight), an
    engine gap apart from SDPA."""
    runs, failures = [], []
    for _ in range(wanted * 30):
        if len(runs) == wanted:
            break
        case = draw()
        try:
            inv, plan, got = engine(case)
        except CalcError:
            continue
        try:
            expected = (measured or pytorch)(case, inv, plan)
        except ZeroDivisionError:
            assert case["optimizer"] == "adafactor", case
            continue
        runs.append((case, inv, got))
        figures = {k: getattr(got, k) for k in FIGURES}
        if figures != expected:
            failures.append((case, {k: (figures[k], expected[k]) for k in FIGURES if figures[k] != expected[k]}))
    return runs, failures


@pytest.mark.parametrize("model_type", SDPA)
def test_sdpa_step_matches_pytorch(model_type: str) -> None:
    """Every figure of a few random SDPA steps per family equals PyTorch's."""
    rng = random.Random(f"{SEED}-{model_type}-sdpa")
    runs, failures = compared(lambda: sdpa_case(rng, model_type), PER_FAMILY)
    assert len(runs) == PER_FAMILY, f"only {len(runs)} runnable cases drawn"
    assert any(inv.num_layers > 0 for _, inv, _ in runs), "no drawn case had an attention layer"
    assert not failures, "\n".join(f"{case!r}: {diff}" for case, diff in failures)


SDPA_DROPOUT_PER_FAMILY = int(os.environ.get("COSTS_SDPA_DROPOUT_RANDOM", "2"))


@pytest.mark.parametrize("model_type", SDPA)
def test_sdpa_with_attention_dropout_is_pytorchs_step_with_dropout_p_0(model_type: str) -> None:
    """Attention dropout > 0 with SDPA: every figure equals PyTorch's step on the same config with
    ``scaled_dot_product_attention``'s ``dropout_p`` set to 0 (the fused kernel, which the registered rules and
    the kernel check see), and the step carries the note's (key, value)."""
    family = FAMILIES[model_type]
    arch = next(a.name for a in family.architectures
                if family.costs.architectures is None or a.name in family.costs.architectures)
    dropped = engine_build({"model_type": model_type, **{k: 0.1 for k in family.costs.sdpa_dropout}}, arch, None)
    refused = []
    for attention in ("eager", "sdpa"):
        try:
            costs.compute(dropped, costs.settings(1, 8, attention=attention))
        except CalcError as exc:
            refused.append(exc.code)
    if refused == ["costs_step_value"] * 2:
        # The family's program refuses attention dropout > 0 whatever the attention (ModernBERT's, Nomic BERT's:
        # its step keys), a refusal test_costs_reference.py proves: no SDPA step to draw.
        return
    rng = random.Random(f"{SEED}-{model_type}-sdpa-dropout")

    def with_dropout_0(case: dict[str, Any], inv: Any, plan: Any) -> dict[str, int]:
        with attention_dropout_0():
            return pytorch(case, inv, plan)

    runs, failures = compared(lambda: sdpa_dropout_case(rng, model_type), SDPA_DROPOUT_PER_FAMILY, with_dropout_0)
    assert len(runs) == SDPA_DROPOUT_PER_FAMILY, f"only {len(runs)} runnable cases drawn"
    for case, _, got in runs:
        assert got.sdpa_dropout == tuple((k, dict.__getitem__(*dropout_key(model_type, case["raw"], k)))
                                         for k in FAMILIES[model_type].costs.sdpa_dropout), case
    assert not failures, "\n".join(f"{case!r}: {diff}" for case, diff in failures)


def test_gpu_fused_kernels_keep_a_random_number_state_and_cpu_math_keeps_the_mask() -> None:
    """What the ``sdpa_dropout_gpu`` note says, from PyTorch 2.13 itself.

    On a GPU: CUDA's flash and memory-efficient kernels, run on meta tensors (their registrations in
    ``torch/_meta_registrations.py``), with dropout 0.1 and inputs that need gradients: their autograd nodes
    (``ScaledDotProductFlashAttentionBackward0``, ``ScaledDotProductEfficientAttentionBackward0``) save q, k, v, the
    output, a float32 logsumexp and a random-number state (flash: ``rng_state``, 2 uint64, and ``unused``, one
    uint64; memory-efficient: ``philox_seed`` and ``philox_offset``, one int64 each): no [B, A, L, L] mask. On CPU:
    with dropout > 0 the step keeps two [B, A, L, L] tensors per layer (the probabilities and the dropout mask,
    SDPA's math path as eager does), with dropout 0 none."""
    import torch

    from .costs_measure import make_model

    b, a, n, d = 2, 3, 40, 4
    q, k, v = (torch.empty(b, a, n, d, device="meta", requires_grad=True) for _ in range(3))
    out = torch.ops.aten._scaled_dot_product_flash_attention(q, k, v, 0.1)
    node = out[0].grad_fn
    assert node.name() == "ScaledDotProductFlashAttentionBackward0"
    kept = {name[len("_saved_"):]: getattr(node, name) for name in dir(node) if name.startswith("_saved_")}
    tensors = {name: t for name, t in kept.items() if isinstance(t, torch.Tensor)}
    assert set(tensors) == {"query", "key", "value", "output", "logsumexp", "rng_state", "unused"}, kept
    assert tuple(tensors["logsumexp"].shape) == (b, a, n) and tensors["logsumexp"].dtype == torch.float32
    rng = {name: tensors[name].numel() * tensors[name].element_size() for name in ("rng_state", "unused")}
    assert rng == {"rng_state": 16, "unused": 8}  # the note's "rng_state, 16 bytes, and an 8-byte tensor"
    out = torch.ops.aten._scaled_dot_product_efficient_attention(q, k, v, None, True, 0.1)
    node = out[0].grad_fn
    assert node.name() == "ScaledDotProductEfficientAttentionBackward0"
    kept = {name[len("_saved_"):]: getattr(node, name) for name in dir(node) if name.startswith("_saved_")}
    tensors = {name: t for name, t in kept.items() if isinstance(t, torch.Tensor)}
    assert set(tensors) == {"query", "key", "value", "output", "log_sumexp", "philox_seed", "philox_offset"}, kept
    assert kept["attn_bias"] is None
    rng = {name: tensors[name].numel() * tensors[name].element_size() for name in ("philox_seed", "philox_offset")}
    assert rng == {"philox_seed": 8, "philox_offset": 8}  # "an 8-byte Philox seed and an 8-byte offset"
    # (Its logsumexp is padded to a multiple of 32 positions on CUDA: the docs' SDPA section says so.)
    assert tuple(tensors["log_sumexp"].shape) == (b, a, 64)
    # CPU: what the math path keeps with dropout, per layer.
    raw = {"vocab_size": 30, "hidden_size": 12, "num_attention_heads": a, "num_hidden_layers": 2,
           "intermediate_size": 10, "max_position_embeddings": 16, "hidden_dropout_prob": 0.0}
    for p, square in ((0.1, 2), (0.0, 0)):
        model = make_model("bert", "BertModel", {**raw, "attention_probs_dropout_prob": p}, "fp32", attention="sdpa")
        shapes = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.autograd.graph.saved_tensors_hooks(lambda t, seen=shapes: seen.append(tuple(t.shape)) or t,
                                                          lambda t: t):
                model(input_ids=torch.zeros((b, 7), dtype=torch.long))
        assert shapes.count((b, a, 7, 7)) == 2 * square, (p, shapes)


def test_the_step_runs_the_cpu_flash_kernel_and_its_flops_are_torchs_rules() -> None:
    """With dropout 0 the step calls ``_scaled_dot_product_flash_attention_for_cpu`` once per layer (what the
    registered rules count), and with dropout > 0 never (PyTorch's math path, which the engine does not cost: it
    gives the fused kernel's figures at dropout 0, with a note); the engine's attention row is torch's
    ``sdpa_flop_count`` on the layer's shapes."""
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
        assert costs.compute(inv, costs.settings(2, 5, attention="sdpa")).sdpa_dropout == (
            (("attention_probs_dropout_prob", p),) if p > 0 else ())
        sim, _ = costs.simulate(inv, costs.settings(2, 5, attention="sdpa"))
        rows = [r for r in sim.tape if r.op == kernel]
        shape = (2, 3, 5, 4)
        assert [(r.forward, r.backward) for r in rows] == [
            (sdpa_flop_count(shape, shape, shape), sdpa_backward_flop_count(shape, shape, shape, shape))] * 2


class _Calls:
    """The aten operations a forward calls, by name (a TorchDispatchMode made on first use: torch is imported late)."""

    @staticmethod
    def names(model, ids) -> list[str]:
        from torch.utils._python_dispatch import TorchDispatchMode

        class Calls(TorchDispatchMode):
            def __init__(self) -> None:
                super().__init__()
                self.names: list[str] = []

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                self.names.append(str(func.overloadpacket.__name__))
                return func(*args, **(kwargs or {}))

        mode = Calls()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with mode:
                model(input_ids=ids)
        return mode.names


def _step_figures(raw: dict[str, Any], arch: str, dtype: str, autocast: str | None, plan_of=None,
                  checkpointing: Any = False) -> tuple[dict[str, int], dict[str, int]]:
    """The engine's six figures and PyTorch's for one SDPA step of ``raw`` (B = 2, L = 5, AdamW)."""
    inv = engine_build(raw, arch, None)
    plan = plan_of(inv) if plan_of is not None else None
    s = costs.settings(2, 5, dtype, "adamw", checkpointing, attention="sdpa", autocast=autocast)
    got = costs.compute(inv, s, plan)
    model = make_model(raw["model_type"], arch, {k: v for k, v in raw.items() if k != "model_type"}, dtype,
                       attention="sdpa")
    hf_model = model
    if plan is not None:
        model = lora(model, plan.settings)
    expected = measure(model, hf_model, 2, 5, raw["vocab_size"], "adamw", bool(checkpointing),
                       checkpointing == "reentrant", autocast=autocast)
    return {k: getattr(got, k) for k in FIGURES}, expected


def test_sdpa_math_path_is_where_pytorch_leaves_the_kernel() -> None:
    """One-wide heads (Nomic BERT, ModernBERT): rotary turns Q and K into two columns while V keeps one, and PyTorch
    leaves the flash kernel for SDPA's math path (``_safe_softmax``, two ``bmm``). The engine models that path
    (``Ops.sdpa_math``): every figure equals PyTorch's in float32, bf16 and under autocast; two-wide heads run the
    kernel."""
    for mt, arch, extra in (("nomic_bert", "NomicBertModel", {}), ("modernbert", "ModernBertModel", {"pad_token_id": 0})):
        for heads, math in ((8, True), (4, False)):
            raw = {"model_type": mt, "vocab_size": 30, "hidden_size": 8, "num_attention_heads": heads,
                   "num_hidden_layers": 2, "intermediate_size": 10, "max_position_embeddings": 16, **extra}
            model = make_model(mt, arch, {k: v for k, v in raw.items() if k != "model_type"}, "fp32", attention="sdpa")
            import torch

            names = _Calls.names(model, torch.zeros((1, 5), dtype=torch.long))
            assert ("_scaled_dot_product_flash_attention_for_cpu" in names) is not math, (mt, heads)
            assert ("_safe_softmax" in names) is math, (mt, heads)
            for dtype, autocast in (("fp32", None), ("bf16", None), ("fp32", "bf16")):
                got, expected = _step_figures(raw, arch, dtype, autocast)
                assert got == expected, (mt, heads, dtype, autocast)


def test_t5_bias_mask_decides_the_kernel() -> None:
    """T5's position bias is SDPA's mask. Trained (every parameter), PyTorch runs SDPA's math path
    (``_safe_softmax``), never the flash kernel; frozen (LoRA), the flash kernel. The engine follows it both
    ways (``Ops.sdpa_math``), every figure PyTorch's (random cases: test_sdpa_step_matches_pytorch[t5])."""
    import torch

    from calculator import peft as planner

    for mt, arch in (("t5", "T5EncoderModel"), ("umt5", "UMT5EncoderModel")):
        raw = {"model_type": mt, "vocab_size": 30, "d_model": 8, "d_kv": 4, "d_ff": 10, "num_layers": 2, "num_heads": 2,
               "relative_attention_num_buckets": 8, "dropout_rate": 0.0}
        for frozen in (False, True):
            model = make_model(mt, arch, {k: v for k, v in raw.items() if k != "model_type"}, "fp32", attention="sdpa")
            if frozen:
                for name, p in model.named_parameters():
                    if "relative_attention_bias" in name:
                        p.requires_grad_(False)
            names = _Calls.names(model, torch.zeros((2, 5), dtype=torch.long))
            flash = names.count("_scaled_dot_product_flash_attention_for_cpu")
            assert (flash, names.count("_safe_softmax")) == ((2, 0) if frozen else (0, 2)), (mt, frozen)
        for dtype, autocast, ckpt in (("fp32", None, False), ("bf16", None, "reentrant"), ("fp32", "bf16", False),
                                      ("fp32", None, "non-reentrant")):
            got, expected = _step_figures(raw, arch, dtype, autocast, checkpointing=ckpt)
            assert got == expected, (mt, dtype, autocast, ckpt)
        got, expected = _step_figures(raw, arch, "fp32", None, lambda inv: planner.lora_from_text(inv, 4, "q,v", "none", None))
        assert got == expected, (mt, "lora")


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


SDPA_AUTOCAST = tuple(mt for mt in SDPA if FAMILIES[mt].costs.autocast)
SDPA_AUTOCAST_PER_FAMILY = int(os.environ.get("COSTS_SDPA_AUTOCAST_RANDOM", "3"))


@pytest.mark.parametrize("model_type", SDPA_AUTOCAST)
def test_sdpa_under_autocast_matches_pytorch(model_type: str) -> None:
    """SDPA with mixed precision (``--attention sdpa --mixed-precision bf16``): the model in float32, its forward
    under ``torch.autocast("cpu", dtype=torch.bfloat16)``, ``attn_implementation="sdpa"``. CPU's autocast lists
    ``scaled_dot_product_attention`` as a lower-precision operation (a float32 q, k, v or float mask is copied to
    bf16, the kernel keeps bf16 q, k, v and output and a float32 logsumexp): every figure equals PyTorch's, with the
    attention dropout 0 or, now and then, > 0 (``dropout_p`` forced to 0, as above)."""
    rng = random.Random(f"{SEED}-{model_type}-sdpa-autocast")
    failures, done = [], 0
    for _ in range(SDPA_AUTOCAST_PER_FAMILY * 40):
        if done == SDPA_AUTOCAST_PER_FAMILY:
            break
        case = sdpa_dropout_case(rng, model_type) if rng.random() < 0.3 else sdpa_case(rng, model_type)
        case["dtype"] = "fp32"
        try:
            inv, plan, _ = engine(case)  # the refusals of the step without autocast: redraw
            mode = case["checkpointing"] and ("reentrant" if case.get("reentrant", True) else "non-reentrant")
            s = costs.settings(case["batch"], case["seq_len"], "fp32", case["optimizer"], mode, attention="sdpa",
                               autocast="bf16")
            got = costs.compute(inv, s, plan)
        except CalcError:
            continue
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            config = {k: v for k, v in case["raw"].items() if k not in ("model_type", "architectures")}
            model = make_model(inv.model_type, case["arch"], config, "fp32", case["pooler"], attention="sdpa")
            hf_model = model
            if case["plan"] == "freeze":
                freeze(model, *case["freeze"])
            elif case["plan"] == "lora":
                model = lora(model, plan.settings)
            with attention_dropout_0():
                expected = measure(model, hf_model, case["batch"], case["seq_len"], vocab_of(inv),
                                   case["optimizer"], case["checkpointing"], case.get("reentrant", True),
                                   autocast="bf16")
        except ZeroDivisionError:  # Adafactor on an empty parameter, as in test_sdpa_step_matches_pytorch
            assert case["optimizer"] == "adafactor", case
            continue
        finally:
            torch.set_num_threads(threads)
        done += 1
        figures = {k: getattr(got, k) for k in FIGURES}
        if figures != expected:
            failures.append((case, {k: (figures[k], expected[k]) for k in FIGURES if figures[k] != expected[k]}))
    assert done == SDPA_AUTOCAST_PER_FAMILY, f"only {done} runnable cases drawn"
    assert not failures, "\n".join(f"{case!r}: {diff}" for case, diff in failures)


def test_neomme_windows_are_the_configs() -> None:
    """NeoMME's sliding layers under SDPA: the windows the step reads (``neomme.layer_windows``) are those
    ``NeoMMEConfig`` derives (``per_layer_config``), its long default included."""
    import transformers

    from calculator.families import neomme

    kinds = ["sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "full_attention"]
    cfg = transformers.NeoMMEConfig(num_hidden_layers=5, layer_types=kinds, sliding_window=3)
    assert neomme.LONG_WINDOW == transformers.NeoMMEConfig.default_long_sliding_window
    assert neomme.layer_windows(tuple(kinds), 3) == [c.sliding_window for c in cfg.per_layer_config]


def test_neomme_per_layer_config_windows_are_the_configs_and_cost_as_pytorch() -> None:
    """A config's own ``per_layer_config`` replaces NeoMMEConfig's derived one whole: the layers it names take its
    windows, the others the global ``sliding_window``, a full-attention layer too (its mask then a window's).
    The windows the step reads equal ``NeoMMEConfig``'s; and an SDPA step where a full layer's window is reached
    at L (its mask kept by the kernel) equals PyTorch's, and differs from the same config without the overrides."""
    import transformers

    from calculator.families import neomme

    kinds = ["sliding_attention", "full_attention", "sliding_attention", "full_attention"]
    for per_layer in ({}, {"0": {"sliding_window": 5}}, {"01": {"sliding_window": 2}, "3": {"sliding_window": None}},
                      {"2": {"skip": ["mlp"]}, "1": {"sliding_window": 7}}):
        cfg = transformers.NeoMMEConfig(num_hidden_layers=4, layer_types=kinds, sliding_window=3,
                                        per_layer_config=per_layer)
        raw = {"model_type": "neomme", "num_hidden_layers": 4, "layer_types": kinds, "sliding_window": 3,
               "per_layer_config": per_layer}
        kept = engine_build(raw).config["per_layer_config"]
        assert neomme.layer_windows(tuple(kinds), 3, kept) == [c.sliding_window for c in cfg.per_layer_config], per_layer
    small = {"model_type": "neomme", "vocab_size": 30, "embedding_rank": 4, "hidden_size": 8, "intermediate_size": 6,
             "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 16,
             "layer_types": ["sliding_attention", "full_attention"], "sliding_window": 8}
    case = {"raw": dict(small, per_layer_config={"1": {"sliding_window": 2}}), "arch": "NeoMMEModel", "pooler": None,
            "batch": 2, "seq_len": 5, "dtype": "fp32", "optimizer": "adamw", "checkpointing": False, "plan": "none"}
    inv, plan, got = engine(case)
    assert {k: getattr(got, k) for k in FIGURES} == pytorch(case, inv, plan)
    _, _, without = engine(dict(case, raw=small))
    assert got.activations > without.activations  # the full layer's [B, 1, L, L] mask, kept by the kernel
