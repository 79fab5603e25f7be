"""What a family declares so its training step can be costed: :class:`CostModel` and its step keys.

Below the families (they import it), so it imports nothing from
``calculator/families/`` (tests/properties/test_layering.py): the check of a
rate in [0, 1] it shares with keras_bert is :func:`calculator.config.coerce_fraction`.
Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..config import coerce_bool, coerce_fraction, coerce_int
from ..errors import CalcError
from ..model import Inventory
from .tensor import T


@dataclass(frozen=True)
class StepKey:
    """A config.json key that shapes no tensor but changes the training step (a dropout probability, the activation).

    ``build`` keeps it in ``inv.config`` (checked: a probability in [0, 1], an
    activation a string), the share link carries it when it is not ``default``
    (transformers' default for the family), and the crosscheck draws it. ``kind``:
    ``"dropout"`` (p = 0 returns its input, p > 0 keeps a mask), ``"activation"``, or ``"size"`` (a whole
    number ≥ 1 only some step reads: ModernBERT's ``local_attention``, whose mask SDPA keeps past half of it), or
    ``"flag"`` (a boolean: TAPAS's ``reset_position_index_per_cell``, whether positions are computed per batch row).
    ``fallback``: the key whose value a None means (``classifier_dropout`` None is
    ``hidden_dropout_prob``). ``read``: whether the family's program reads it; when
    False the step refuses (``costs_step_value``) any value that would not cost as
    the default does, rather than cost it as the default.
    """

    key: str
    default: Any
    kind: str = "dropout"
    fallback: str | None = None
    read: bool = True
    #: Where a composite's config.json nests it: (sub-config, its key there), e.g. ("text_config",
    #: "local_attention") for ModernVBERT's ``text_local_attention`` (the form's and the link's prefixed key wins).
    nested: tuple[str, str] | None = None

    def same_step(self, value: Any, default: Any) -> bool:
        """Whether ``value`` costs what ``default`` costs: a dropout only matters by p > 0, an activation by name."""
        if self.kind == "dropout":
            return (value > 0) == (default > 0)
        return bool(value == default)


def dropouts(*keys: str, default: float = 0.1, read: bool = True) -> tuple[StepKey, ...]:
    """Dropout keys sharing one default (BERT's ``hidden_dropout_prob`` and ``attention_probs_dropout_prob``: 0.1)."""
    return tuple(StepKey(k, default, "dropout", None, read) for k in keys)


def classifier_dropout(key: str = "classifier_dropout", fallback: str = "hidden_dropout_prob",
                       read: bool = True) -> StepKey:
    """transformers' ``config.classifier_dropout if not None else config.hidden_dropout_prob``."""
    return StepKey(key, None, "dropout", fallback, read)


def size_key(key: str, default: int, read: bool = True) -> StepKey:
    """A whole number ≥ 1 the step reads (ModernBERT's ``local_attention``), transformers' default for the family."""
    return StepKey(key, default, "size", None, read)


def flag_key(key: str, default: bool, read: bool = True) -> StepKey:
    """A boolean the step reads (TAPAS's ``reset_position_index_per_cell``), transformers' default for the family."""
    return StepKey(key, default, "flag", None, read)


def activation_key(default: str, key: str = "hidden_act", read: bool = True) -> StepKey:
    """The activation (``ACT2FN[config.hidden_act]``), transformers' default for the family."""
    return StepKey(key, default, "activation", None, read)


#: BERT's: ``hidden_act`` "gelu", ``hidden_dropout_prob`` and ``attention_probs_dropout_prob`` 0.1,
#: ``classifier_dropout`` None (= ``hidden_dropout_prob``). RoBERTa, XLM-R, CamemBERT, Data2VecText, ERNIE, ELECTRA.
BERT_KEYS: tuple[StepKey, ...] = (
    activation_key("gelu"), *dropouts("hidden_dropout_prob", "attention_probs_dropout_prob"), classifier_dropout(),
)


def unread(keys: Sequence[StepKey]) -> tuple[StepKey, ...]:
    """The same keys declared as not read by the program: kept, linked and checked, but a value that would
    not cost as the default is refused (``costs_step_value``) until the program reads it."""
    return tuple(StepKey(k.key, k.default, k.kind, k.fallback, False, k.nested) for k in keys)


def nested_keys(keys: Sequence[StepKey], sub: str, prefix: str) -> tuple[StepKey, ...]:
    """A sub-config's step keys as a composite reads them (ModernVBERT's ``text_config``): each key under
    ``prefix`` (the form's name for the sub-config's fields), read from ``raw[sub]`` when not given prefixed."""
    return tuple(StepKey(prefix + k.key, k.default, k.kind, prefix + k.fallback if k.fallback else None, k.read,
                         (sub, k.key)) for k in keys)


def _raw_value(spec: StepKey, raw: Mapping[str, Any]) -> Any:
    """The key's value in a raw config: its own key, else (a nested key) the sub-config's, else the default."""
    if spec.key in raw or spec.nested is None:
        return raw.get(spec.key, spec.default)
    sub = raw.get(spec.nested[0])
    return sub.get(spec.nested[1], spec.default) if isinstance(sub, Mapping) else spec.default


def _step_key(inv: Inventory, key: str) -> StepKey | None:
    model = getattr(inv.family, "costs", None)
    for spec in (model.keys if model is not None else ()):
        if spec.key == key:
            return spec
    return None


def step_value(inv: Inventory, key: str, default: Any = None) -> Any:
    """The value the step runs with for ``key``: the config's (as ``build`` kept it), a None resolved to its
    ``fallback`` key, else the declared default (``default`` for a key the family does not declare)."""
    spec = _step_key(inv, key)
    value = inv.config.get(key, spec.default if spec is not None else default)
    if value is None and spec is not None and spec.fallback is not None:
        return step_value(inv, spec.fallback, default)
    return default if value is None else value


def read_step_keys(keys: Sequence[StepKey], raw: Mapping[str, Any]) -> dict[str, Any]:
    """The step keys' values from a raw config, defaults filled in and checked (``build`` keeps them).

    A probability must be a number in [0, 1] (``bad_fraction``), None only where the
    key falls back to another; an activation a non-empty string (``bad_value``).
    Whether the simulator models an activation is the step's question, not the count's.
    """
    out: dict[str, Any] = {}
    for spec in keys:
        value = _raw_value(spec, raw)
        if spec.kind == "dropout":
            if value is None and spec.fallback is not None:
                out[spec.key] = None
            else:
                out[spec.key] = coerce_fraction(spec.key, value)
        elif spec.kind == "flag":
            out[spec.key] = coerce_bool(spec.key, value)
        elif spec.kind == "size":
            number = coerce_int(spec.key, value)
            if number < 1:
                raise CalcError("bad_value", key=spec.key, value=value)
            out[spec.key] = number
        else:
            if not isinstance(value, str) or not value.strip():
                raise CalcError("bad_value", key=spec.key, value=value)
            out[spec.key] = value.strip()
    return out


def check_step_keys(inv: Inventory, model: "CostModel") -> None:
    """Refuse a value of a key the program does not read when it would not cost as the default (never a guess).

    A dropout of p = 1 is refused for every key: PyTorch then multiplies by a zero scalar and keeps that
    scalar instead of a mask, a case no one trains with and the programs do not model.
    """
    for spec in model.keys:
        if spec.kind == "dropout" and step_value(inv, spec.key) == 1:
            raise CalcError("costs_step_value", model_type=inv.model_type, key=spec.key, value=1, modelled="< 1")
        if spec.read:
            continue
        default = spec.default
        if default is None and spec.fallback is not None:
            default = step_value(inv, spec.fallback)
        if not spec.same_step(step_value(inv, spec.key), default):
            shown = f"= {default}" if spec.kind == "activation" else ("= 0" if default == 0 else "> 0")
            raise CalcError("costs_step_value", model_type=inv.model_type, key=spec.key,
                            value=inv.config.get(spec.key), modelled=shown)


def step_query(spec: StepKey) -> Callable[[Mapping[str, Any], Mapping[str, Any]], str | None]:
    """The share link's text for a step key: its value as read, left out when it is transformers' default."""

    def to_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
        value = config.get(spec.key, spec.default)
        if value == spec.default:  # 0.1 == 0.1, "gelu" == "gelu", None == None
            return None
        if value is None:
            return "null"
        return value if isinstance(value, str) else repr(value)

    return to_query


def step_parse(text: str) -> Any:
    """A step key's text from a share link, as config.json holds it (checked by ``build``)."""
    text = text.strip()
    return None if text == "null" else text


@dataclass(frozen=True)
class CostModel:
    """What a family declares so its training step can be worked out (:attr:`Family.costs`).

    ``program(sim, inv, batch, seq_len)`` runs the class's forward pass on the
    simulator and returns its floating-point outputs; ``max_seq_len(config)`` is
    the longest input the position table takes (None: no absolute positions);
    ``architectures`` lists the classes it covers (None: all of them);
    ``check(inv)`` may refuse a config the step cannot run (a coded error).
    """

    #: Its first argument is a :class:`calculator.costs.modules.Sim` (typed ``Any``: the simulator imports this module).
    program: Callable[[Any, Inventory, int, int], Sequence[T]]
    max_seq_len: Callable[[Mapping[str, Any]], int | None] | None = None
    architectures: tuple[str, ...] | None = None
    check: Callable[[Inventory], None] | None = None
    #: Whether the class supports gradient checkpointing (``gradient_checkpointing_enable`` raises otherwise).
    checkpointing: bool = True
    #: The config keys the step depends on that shape no tensor (:class:`StepKey`), with transformers' defaults.
    keys: tuple[StepKey, ...] = ()
    #: The class's registered buffers the inventory does not list (non-persistent ones, live from the start of
    #: the step), as (name, shape, bytes per number; 0: the model's dtype), e.g. :func:`position_buffers`. None: the peak of live
    #: memory (:mod:`.peak`) is not cross-checked for this family yet, so the step reports none.
    #: Bytes per number 0: a floating buffer ``model.to(dtype)`` casts, in the step's dtype (ModernBERT's ``inv_freq``).
    buffers: Callable[[Inventory], Sequence[tuple[str, tuple[int, ...], int]]] | None = None
    #: Whether the step under mixed precision (``torch.autocast`` bf16 around the forward) is cross-checked for
    #: this family (tests/crosscheck/test_costs_autocast.py); False: refused (``costs_autocast_family``).
    autocast: bool = False
    #: The configs whose forward PyTorch itself raises under bf16 autocast (``fails(config)``; transformers 5.23's
    #: dtype mixes, proven by test_costs_autocast.py's refusal cross-check): refused as ``costs_forward_fails``
    #: (key ``mixed_precision``) once the config's own refusals are passed, rather than "not checked yet"
    #: (``costs_autocast_family``), which the others keep when :attr:`autocast` is False.
    autocast_fails: Callable[[Mapping[str, Any]], bool] | None = None
    #: Whether the program models ``attn_implementation="sdpa"`` (``sim.attention``: PyTorch's CPU flash kernel,
    #: :meth:`.ops.Ops.sdpa`), cross-checked in tests/crosscheck/test_costs_sdpa_reference.py. False: SDPA refused
    #: (``costs_sdpa_not_modelled``) for a class that supports it, rather than costed as eager.
    sdpa: bool = False
    #: The attention-dropout keys SDPA receives as ``dropout_p``: > 0, the step is the fused kernel's with them at 0,
    #: and says so (:func:`.step.sdpa_dropout`).
    sdpa_dropout: tuple[str, ...] = ("attention_probs_dropout_prob",)
    #: Whether the program's reentrant checkpointing (``use_reentrant=True``: :meth:`.lifetime.LiveSim.reentrant_layer`,
    #: under bf16 autocast too) is proven against PyTorch op by op (tests/crosscheck/test_peak_engine.py); False: those
    #: steps keep their bounds. (A frozen input embedding's output under checkpointing, :meth:`.lifetime.LiveSim._leaf`,
    #: is replayed for every family: it needs no declaration.)
    reentrant: bool = False


def position_ids_buffer(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """Embeddings that register ``position_ids`` only (int64 [1, max_position_embeddings], non-persistent):
    DistilBERT, MobileBERT, DeBERTa, DeBERTa-v2, Megatron-BERT, RemBERT, SqueezeBERT, MPNet, ESM."""
    width = int(inv.config["max_position_embeddings"])
    return [(inv.arch.prefix + "embeddings.position_ids", (1, width), 8)]


def no_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """A class that registers no buffer beyond the inventory's (Longformer, RoFormer, Funnel)."""
    return []


def position_buffers(inv: Inventory) -> list[tuple[str, tuple[int, ...], int]]:
    """BERT's embeddings register ``position_ids`` and ``token_type_ids`` (int64 [1, max_position_embeddings],
    ``persistent=False``): RoBERTa, XLM-R, CamemBERT, Data2VecText, ELECTRA and ERNIE keep them too."""
    prefix = inv.arch.prefix + "embeddings."
    width = int(inv.config["max_position_embeddings"])
    return [(prefix + "position_ids", (1, width), 8), (prefix + "token_type_ids", (1, width), 8)]

