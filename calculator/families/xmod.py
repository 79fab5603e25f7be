"""X-MOD (``modeling_xmod.py``): XLM-R's layout with a bottleneck adapter per language in every layer.

The classes are RoBERTa's seven (backbone under ``roberta.``, registered before
the head), the embeddings RoBERTa's (``pad_token_id`` 1 pads the word and the
position table). What X-MOD adds, in each layer's ``output`` after its LayerNorm:

* ``adapter_modules.<language>``, one per entry of the config's ``languages`` list
  (the adapter's name *is* the language code): ``dense1`` [B, H] and ``dense2``
  [H, B] with biases, B = H // ``adapter_reduction_factor``. The list is the
  config's, so 81 languages are 81 adapters per layer: they hold 574M of
  xmod-base's 852M parameters, of which any one input uses one language's (7.1M).
  ``nn.ModuleDict`` keeps one adapter per distinct name (a repeated code adds
  nothing) and refuses a name that is empty or contains a dot.
* ``adapter_layer_norm`` (only with ``adapter_layer_norm``; by default the
  adapter reuses the layer's own LayerNorm, ``adapter_reuse_layer_norm``, which
  adds nothing, and neither does ``ln_before_adapter``).
* ``pre_norm`` moves the LayerNorms before each block (their count does not
  change) and adds ``encoder.LayerNorm`` after the last layer.

``languages`` is a list of names, not a number, so it has no field in the form:
it comes from a pasted config.json and travels in share links (:attr:`Family.extras`).
"""
from __future__ import annotations

import json
import random
from typing import Any, Callable, Mapping

from ..config import MAX_LAYERS, Field, coerce_bool, read_fields
from ..costs import BERT_KEYS, CostModel, Sim, T, unread, position_buffers
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, blocks, roberta, xlm_roberta_xl
from .base import Extra, Preset, renamed
from .common import BERT_FIELDS, L

FIELDS = (
    *BERT_FIELDS[:7],
    Field(
        "adapter_reduction_factor", 2,
        label=L("Adapter reduction factor (r; each adapter is H // r wide)",
                "适配器缩减倍数（r；每个适配器的瓶颈宽度为 H // r）"),
        sample=(1, 12),
    ),
    Field(
        "adapter_layer_norm", False, kind="bool",
        label=L("A LayerNorm of the adapters' own in each layer (adapter_layer_norm)",
                "每层为适配器另设一个层归一化（adapter_layer_norm）"),
        sample=(0, 1),
    ),
    Field(
        "pre_norm", False, kind="bool",
        label=L("Pre-LayerNorm layers, with a final encoder LayerNorm (pre_norm)",
                "前置层归一化，编码器末尾再加一个层归一化（pre_norm）"),
        sample=(0, 1),
    ),
    *BERT_FIELDS[7:],
)

#: ``XmodConfig.languages``: one adapter, English.
DEFAULT_LANGUAGES: tuple[str, ...] = ("en_XX",)


#: Most languages a config may list. facebook/xmod-base and xmod-large-prenorm have 81 (the paper's
#: 81 pre-training languages); 128 leaves room for a few more without letting a list grow the page's
#: table, copies and link without bound.
MAX_LANGUAGES = 128
#: Longest language name, in characters. The adapters are named by codes such as ``en_XX`` or ``zh_TW``
#: (5 characters; a BCP 47 tag such as ``zh-Hant-TW`` has 10); each name is copied into 4 tensor names
#: per layer, the table and the share link, so 16 keeps a list of 128 within a short link.
MAX_LANGUAGE_NAME = 16
#: Most adapters in all (languages × layers): 81 × 24 = 1,944 for xmod-large-prenorm; each adapter is
#: 4 tensors, so this keeps the table near BERT's largest (checked before any tensor is listed).
MAX_ADAPTERS = 4 * MAX_LAYERS


def read_languages(value: Any, layers: int) -> tuple[str, ...]:
    """The adapters ``nn.ModuleDict`` builds from ``languages``: distinct names, in first-seen order.

    ``XmodConfig`` accepts only a list (or tuple) of strings; each layer's
    ``nn.ModuleDict`` refuses an empty name or one with a dot (so without layers
    nothing refuses it), and a repeated name replaces the earlier adapter rather
    than adding one. The calculator's own bounds (:data:`MAX_LANGUAGES`,
    :data:`MAX_LANGUAGE_NAME`, :data:`MAX_ADAPTERS`) are checked first, on the list as
    given, so a pasted megabyte is refused (``too_large``) before any work on it.
    """
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise CalcError("bad_value", key="languages", value=value)
    if len(value) > MAX_LANGUAGES:
        raise CalcError("too_large", key="len(languages)", value=len(value), maximum=MAX_LANGUAGES)
    for i, name in enumerate(value):
        if len(name) > MAX_LANGUAGE_NAME:
            raise CalcError("too_large", key=f"len(languages[{i}])", value=len(name), maximum=MAX_LANGUAGE_NAME)
    out: dict[str, None] = {}  # a dict keeps first-seen order and finds a repeat in constant time
    for name in value:
        if layers > 0 and (not name or "." in name):
            raise CalcError("bad_value", key="languages", value=name)
        out.setdefault(name)
    if len(out) * layers > MAX_ADAPTERS:
        raise CalcError("too_large", key="len(languages) × num_hidden_layers", value=len(out) * layers,
                        maximum=MAX_ADAPTERS)
    return tuple(out)


#: XmodConfig's defaults for the keys that change only what a step runs (not the tensors):
#: the adapter reuses the layer's ``output.LayerNorm`` and its residual is taken after it.
ADAPTER_DEFAULTS: dict[str, bool] = {"adapter_reuse_layer_norm": True, "ln_before_adapter": True}


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The fields, ``languages`` (absent: XmodConfig's default, English alone), and what the step needs besides:
    ``default_language`` (the adapter an input without ``lang_ids`` goes through; XmodConfig's default, None,
    makes the model refuse such an input) and the two adapter switches."""
    values = read_fields(FIELDS, raw, {})
    values["languages"] = read_languages(raw["languages"], values["num_hidden_layers"]) if "languages" in raw else DEFAULT_LANGUAGES
    language = raw.get("default_language")
    if language is not None and not isinstance(language, str):
        raise CalcError("bad_value", key="default_language", value=language)
    values["default_language"] = language
    for key, default in ADAPTER_DEFAULTS.items():
        values[key] = default if raw.get(key) is None else coerce_bool(key, raw[key])
    return values


def _languages_from_query(text: str) -> Any:
    """A share link's ``languages``: the JSON list it was written as, or names separated by commas."""
    text = text.strip()
    if text.startswith("["):
        try:
            return json.loads(text)
        except ValueError:
            raise CalcError("bad_value", key="languages", value=text) from None
    return [part.strip() for part in text.split(",") if part.strip()]


def _languages_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    languages = tuple(config.get("languages", DEFAULT_LANGUAGES))
    if languages == DEFAULT_LANGUAGES:
        return None
    return json.dumps(list(languages), ensure_ascii=False, separators=(",", ":"))


def _language_from_query(text: str) -> Any:
    return text.strip() or None


def _language_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    return config.get("default_language")


def _switch_extra(key: str) -> Extra:
    """A share link's ``adapter_reuse_layer_norm`` / ``ln_before_adapter``: in the link only when not the default."""

    def to_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
        value = config.get(key, ADAPTER_DEFAULTS[key])
        return None if value == ADAPTER_DEFAULTS[key] else ("true" if value else "false")

    return Extra(key, lambda text: text.strip(), to_query)


def bottleneck(c: Mapping[str, Any]) -> int:
    return c["hidden_size"] // c["adapter_reduction_factor"]


#: ``XmodLayer`` with ``pre_norm``: BERT's tensors under BERT's names (``attention.output.LayerNorm`` now runs
#: before the attention, ``output.LayerNorm`` before the feed-forward pair), GELU, the dropouts fixed; the
#: adapters run on its output (:func:`step_adapters`).
PRE_LN_LAYER = blocks.PreLNLayer(
    "attention.output.LayerNorm", "output.LayerNorm",
    (blocks.QKV, blocks.ATTENTION_OUTPUT, blocks.ATTENTION_NORM, blocks.INTERMEDIATE, blocks.OUTPUT, blocks.FFN_NORM),
)


def encoder_layer(t: TensorList, c: dict[str, Any], prefix: str, i: int) -> None:
    """BERT's layer (post-LN, or the pre-LN layer: the same tensors), then the adapters' LayerNorm (if any) and
    one adapter per language in ``output``."""
    h, b = c["hidden_size"], bottleneck(c)
    if c["pre_norm"]:
        PRE_LN_LAYER.tensors(t, prefix, i, h, c["intermediate_size"])
    else:
        bert.encoder_layer(t, prefix, i, h, c["intermediate_size"])
    p = f"{prefix}encoder.layer.{i}.output."
    if c["adapter_layer_norm"]:
        t.layer_norm(p + "adapter_layer_norm", h, layer=i)
    for language in c["languages"]:
        a = f"{p}adapter_modules.{language}."
        t.linear(a + "dense1", b, h, "feed_forward", i)
        t.linear(a + "dense2", h, b, "feed_forward", i)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    for i in range(c["num_hidden_layers"]):
        encoder_layer(t, c, prefix, i)
    if c["pre_norm"]:
        t.layer_norm(prefix + "encoder.LayerNorm", h, section="encoder")
    if with_pooler:
        bert.pooler(t, c, prefix)


def formula(inv: Inventory) -> Formula:
    """BERT's terms, plus N adapters per layer (N distinct languages), their LayerNorm and the pre-norm final norm."""
    c = inv.config
    v, h, p, t, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    r, langs = c["adapter_reduction_factor"], len(c["languages"])
    b = h // r
    lines = [bert.embeddings_line(v, p, t, h), *layers_lines(*bert.layer_terms(h, i), n)]
    lines.append(FormulaLine(
        "language_adapters", "L·N·(2H·B + B + H), B = H // r",
        f"{n}·{langs}·(2·{h}·{b} + {b} + {h})", n * langs * (2 * h * b + b + h),
    ))
    if c["adapter_layer_norm"]:
        lines.append(FormulaLine("adapter_layer_norms", "L·2H", f"{n}·2·{h}", n * 2 * h))
    if c["pre_norm"]:
        lines.append(FormulaLine("final_layer_norm", "2H", f"2·{h}", 2 * h))
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    symbols = {"V": v, "P": p, "T": t, "H": h, "I": i, "L": n, "N": langs, "r": r, "B": b}
    return Formula(symbols, tuple(lines + head_line(inv)))


LABELS_ = {
    "language_adapters": L(
        "Language adapters: N per layer, one per language code (adapter_modules)",
        "语言适配器：每层 N 个，每个语言代码一个（adapter_modules）",
    ),
    "adapter_layer_norms": L(
        "The adapters' own LayerNorms (adapter_layer_norm)", "适配器自己的层归一化（adapter_layer_norm）",
    ),
    "final_layer_norm": L("Final LayerNorm (encoder.LayerNorm; pre_norm)", "编码器末尾的层归一化（encoder.LayerNorm；pre_norm）"),
}

#: Codes the random configs draw from (and, now and then, one that ``nn.ModuleDict`` refuses).
SAMPLE_LANGUAGES = ("en_XX", "de_DE", "zh_CN", "fr_XX", "ja_XX", "sw_KE", "de-CH", "rm CH")


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """Heads divide H; 0 to 4 languages (repeats included), sometimes left out, now and then a refused name."""
    heads = rng.choice([1, 2, 3, 4, 6, 8, 12, 16])
    config["num_attention_heads"] = heads
    config["hidden_size"] = heads * rng.randint(1, 24)
    roll = rng.random()
    if roll < 0.15:
        return  # XmodConfig's default, English alone
    languages = [rng.choice(SAMPLE_LANGUAGES) for _ in range(rng.randint(0, 4))]
    if roll < 0.2:
        languages.append(rng.choice(["", "de.DE"]))  # ModuleDict refuses both, and so does the engine
    config["languages"] = languages
    if rng.random() < 0.1:
        config["max_position_embeddings"] = rng.choice([1, 2])  # the padding row (1) must fit: both sides agree


# --------------------------------------------------------------- training step


def step_adapters(sim: Sim, inv: Inventory, p: str, x: T, chosen: int) -> T:
    """``XmodOutput.lang_adapter`` for a batch in one language (``lang_ids`` all ``chosen``), every name dropped
    where it drops it.

    Every adapter runs, in the order of ``adapter_modules``: ``lang_ids == i`` (a [B]
    bool mask), the rows of that language (all B for the chosen one, none for the
    others), dense1, the activation, dense2, written back into a ``zeros_like`` tensor;
    an adapter given no rows costs no FLOPs and keeps 0 bytes, but its mask is kept
    and its weights are in the graph (their ``.grad`` is zeros, not None). Then dropout
    and the residual (``+=``, in place), taken after the adapters' LayerNorm by default (``ln_before_adapter``).
    The loop's names (the mask, the rows, the adapter's output) are rebound at each language.
    """
    c = inv.config
    b = x.shape[0]
    mark = sim.scope()  # lang_adapter
    residual = x
    if c["adapter_layer_norm"]:
        x = sim.layer_norm(p + "adapter_layer_norm", x)
    elif c["adapter_reuse_layer_norm"]:
        x = sim.layer_norm(p + "LayerNorm", x)
    if c["ln_before_adapter"]:
        residual = x
    new = sim.zeros_like(x)
    named: list[T] = []  # lang_mask, lang_hidden_states, adapted_lang_hidden_states of the previous language
    for i, language in enumerate(c["languages"]):
        # Each name is rebound as its own line runs: the previous language's tensor goes then.
        mask = sim.made_by(sim.mask((b,)), "aten.eq")  # lang_ids == adapter_idx
        if named:
            sim.release(named[0])
        rows = sim.index_rows(x, mask, b if i == chosen else 0)
        if named:
            sim.release(named[1])
        a = f"{p}adapter_modules.{language}."
        adapter = sim.scope()  # XmodAdapter.forward
        h = sim.linear(a + "dense1", rows)
        h = sim.rebind(h, sim.keep_input(h))  # GELU
        out = sim.end_scope(adapter, sim.rebind(h, sim.linear(a + "dense2", h)))
        if named:
            sim.release(named[2])
        named = [mask, rows, out]
        new = sim.index_put(new, mask, out)
    hidden = sim.dropout(new)  # hidden_states = self.dropout(new_hidden_states)
    if x is not residual:  # the adapters' LayerNorm output, no longer named
        sim.release(x)
    return sim.end_scope(mark, sim.add_(hidden, residual))  # hidden_states += residual


def step_layer(inv: Inventory, prefix: str, i: int, chosen: int) -> Callable[[Sim, T], T]:
    """One ``XmodLayer``: RoBERTa's post-LN layer with the adapters after the feed-forward sum (before
    ``output.LayerNorm``), or with ``pre_norm`` the pre-LN layer (:data:`PRE_LN_LAYER`'s tensors) with the adapters
    on its output. Both declare every name's release: ``XmodAttention`` returns its probabilities, which
    ``XmodLayer`` holds (``_``) until it returns; ``feed_forward_chunk`` returns the intermediate activation, named
    until the layer returns; ``XmodSelfOutput`` and ``XmodOutput`` add the residual without a LayerNorm, which their
    callers apply (rebinding)."""
    p = f"{prefix}encoder.layer.{i}."
    heads = inv.config["num_attention_heads"]

    def adapters(sim: Sim, out: T) -> T:
        return step_adapters(sim, inv, p + "output.", out, chosen)

    def output(sim: Sim, dense: str, x: T, residual: T) -> T:
        """``XmodSelfOutput`` (and the start of ``XmodOutput``): dense, dropout, ``+ input_tensor``."""
        mark = sim.scope()
        h = sim.linear(dense, x)
        h = sim.rebind(h, sim.dropout(h))
        total = sim.add(h, residual)
        sim.release(h)
        return sim.end_scope(mark, total)

    def run(sim: Sim, x: T) -> T:
        s = p + "attention.self."
        layer = sim.scope()  # XmodLayer.forward
        attention = sim.scope()  # XmodAttention.forward: returns the output and the probabilities
        held: list[T] = []
        context = bert.step_attention(sim, x, heads, s + "query", s + "key", s + "value", held=held)
        attended = output(sim, p + "attention.output.dense", context, x)
        sim.release(context)
        attended = sim.rebind(attended, sim.layer_norm(p + "attention.output.LayerNorm", attended))
        attended = sim.end_scope(attention, attended, *held)
        chunk = sim.scope()  # feed_forward_chunk: XmodIntermediate
        inner = sim.linear(p + "intermediate.dense", attended)
        inner = sim.end_scope(chunk, sim.rebind(inner, sim.keep_input(inner)))  # GELU
        out_mark = sim.scope()  # XmodOutput.forward
        out = output(sim, p + "output.dense", inner, attended)
        out = sim.end_scope(out_mark, sim.rebind(out, adapters(sim, out)))
        out = sim.rebind(out, sim.layer_norm(p + "output.LayerNorm", out))
        return sim.end_scope(layer, out)

    def run_pre_norm(sim: Sim, x: T) -> T:
        """``pre_norm``: ``XmodAttention`` normalises its input (``attention.output.LayerNorm``, named until it
        returns) and adds the raw input back; ``XmodLayer`` normalises the sum with ``output.LayerNorm``
        (``attention_output`` rebound: named until the layer returns, ``residual`` keeping the sum), runs the
        feed-forward pair and ``XmodOutput`` (dense, dropout, + the sum, the adapters), with no LayerNorm after."""
        s = p + "attention.self."
        layer = sim.scope()  # XmodLayer.forward
        attention = sim.scope()  # XmodAttention.forward: the norm's output named until it returns
        normed = sim.layer_norm(p + "attention.output.LayerNorm", x)
        held: list[T] = []
        context = bert.step_attention(sim, normed, heads, s + "query", s + "key", s + "value", held=held)
        attended = output(sim, p + "attention.output.dense", context, x)
        sim.release(context)
        attended = sim.end_scope(attention, attended, *held)
        normed = sim.layer_norm(p + "output.LayerNorm", attended)
        chunk = sim.scope()  # feed_forward_chunk: XmodIntermediate
        inner = sim.linear(p + "intermediate.dense", normed)
        inner = sim.end_scope(chunk, sim.rebind(inner, sim.keep_input(inner)))  # GELU
        out_mark = sim.scope()  # XmodOutput.forward
        out = output(sim, p + "output.dense", inner, attended)
        out = sim.end_scope(out_mark, sim.rebind(out, adapters(sim, out)))
        return sim.end_scope(layer, out)

    return run_pre_norm if inv.config["pre_norm"] else run


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """X-MOD's classes: RoBERTa's embeddings, the layers with their adapters, the pre-norm final LayerNorm, RoBERTa's heads.

    Without ``lang_ids`` ``XmodModel`` makes ``default_language``'s index times
    ``torch.ones(B)`` (float32; the ones dropped once the product is made); with gradient checkpointing every layer
    is called with it as an argument, so the checkpoint keeps it too. The post-LN and the pre-LN layers declare every
    release (the forward and the backward replayed op by op).
    """
    prefix = bert.step_prefix(inv)
    c = inv.config
    # A one-wide adapter (H // adapter_reduction_factor = 1) at B = 1 in training: PyTorch's backward holds 56-70
    # bytes more than the replay (a [B, L, H] temporary the replay frees first; found by the edge sweep, not yet
    # pinned down): proven bounds there, not a figure. Its inference span and B > 1 are measured equal.
    unpinned = b == 1 and bottleneck(c) == 1 and sim.training
    if bert.step_task(inv) in roberta.LIFETIMES and not c.get("is_decoder") and not unpinned:
        sim.exact_lifetimes()
        sim.exact_forward()
    chosen = list(c["languages"]).index(c["default_language"])
    model = sim.scope()  # XmodModel.forward
    sim.transients((4 * b,), (1,), ("aten.ones",))  # torch.ones(batch_size), gone once multiplied
    lang_ids = sim.new((b,), False, 4)
    x = bert.step_embeddings(sim, inv, prefix, b, n, positions_from_ids=True)
    seq = x
    for i in range(c["num_hidden_layers"]):
        if sim.checkpointing:
            sim.checkpoint_argument(lang_ids)
        y = sim.layer(step_layer(inv, prefix, i, chosen), seq)
        if i:
            sim.rebind(seq, y)
        seq = y
    if c["pre_norm"]:
        seq = sim.rebind(seq, sim.layer_norm(prefix + "encoder.LayerNorm", seq))
    pooled = bert.step_pooler(sim, prefix, seq) if inv.pooler else None
    sim.end_scope(model, seq, *([pooled] if pooled is not None else []))
    return xlm_roberta_xl.step_heads(sim, inv, seq, pooled)


def step_check(inv: Inventory) -> None:
    """BERT's class checks; and the language ``XmodModel`` needs when only ``input_ids`` are given."""
    bert.step_check(inv)
    c = inv.config
    if c["num_hidden_layers"] == 0:
        raise CalcError("costs_xmod_no_layers")
    if c["default_language"] not in c["languages"]:
        value = "null" if c["default_language"] is None else c["default_language"]
        names = list(c["languages"])
        # The first four, listed as the language lists names ("a, b" / "a、b"); "more" marks the rest.
        raise CalcError("costs_xmod_language", value=value, count=len(names), languages=names[:4] or ["—"],
                        more=len(names) > 4)


#: RoBERTa's positions: a table of P rows takes P - 2 tokens.
#: The attention dropout is read (bert.step_attention's, SDPA's dropout_p); the others are refused unless they cost as
#: the default.
#: No mixed precision: under bf16 autocast transformers 5.23's ``lang_adapter`` writes the adapter's bf16 output
#: into a float32 ``zeros_like`` of the residual sum (``new_hidden_states[lang_mask] =``; the sum with the float32
#: residual is float32 in every layer 0, pre- or post-norm, with or without the adapter's LayerNorm), and
#: ``index_put_`` raises "Index put requires the source and destination dtypes match", training and inference: refused
#: as a forward PyTorch cannot run (``autocast_fails``; tests/crosscheck/test_costs_autocast.py proves it per draw).
#: Without layers the config's own refusal (``costs_xmod_no_layers``) comes first.
COSTS = CostModel(step_program, bert.absolute_positions(offset=2), check=step_check,
                  keys=(*unread(BERT_KEYS[:2]), BERT_KEYS[2], *unread(BERT_KEYS[3:])), buffers=position_buffers,
                  sdpa=True, reentrant=True, autocast_fails=lambda config: True)


#: facebook/xmod-base's adapters, in the order of its model card's table (index = lang_id).
XMOD_BASE_LANGUAGES = (
    "en_XX", "id_ID", "vi_VN", "ru_RU", "fa_IR", "sv_SE", "ja_XX", "fr_XX", "de_DE", "ro_RO", "ko_KR", "hu_HU",
    "es_XX", "fi_FI", "uk_UA", "da_DK", "pt_XX", "no_XX", "th_TH", "pl_PL", "bg_BG", "nl_XX", "zh_CN", "he_IL",
    "el_GR", "it_IT", "sk_SK", "hr_HR", "tr_TR", "ar_AR", "cs_CZ", "lt_LT", "hi_IN", "zh_TW", "ca_ES", "ms_MY",
    "sl_SI", "lv_LV", "ta_IN", "bn_IN", "et_EE", "az_AZ", "sq_AL", "sr_RS", "kk_KZ", "ka_GE", "tl_XX", "ur_PK",
    "is_IS", "hy_AM", "ml_IN", "mk_MK", "be_BY", "la_VA", "te_IN", "eu_ES", "gl_ES", "mn_MN", "kn_IN", "ne_NP",
    "sw_KE", "si_LK", "mr_IN", "af_ZA", "gu_IN", "cy_GB", "eo_EO", "km_KH", "ky_KG", "uz_UZ", "ps_AF", "pa_IN",
    "ga_IE", "ha_NG", "am_ET", "lo_LA", "ku_TR", "so_SO", "my_MM", "or_IN", "sa_IN",
)


def xmod_config(hidden: int, layers: int, heads: int, pre_norm: bool) -> dict[str, Any]:
    """An X-MOD config.json's size-relevant keys: XLM-R's sizes and vocabulary, and the 81 adapters."""
    return {
        "model_type": "xmod",
        "vocab_size": 250002,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": 4 * hidden,
        "max_position_embeddings": 514,
        "type_vocab_size": 1,
        "pre_norm": pre_norm,
        "adapter_reduction_factor": 2,
        "adapter_layer_norm": False,
        "languages": list(XMOD_BASE_LANGUAGES),
    }


FAMILY = roberta.FAMILY.derive(
    #: The adapters run in every layer: another program than RoBERTa's (``derive`` would copy RoBERTa's).
    costs=COSTS,
    model_type="xmod",
    base="XmodModel",
    fields=FIELDS,
    read=read,
    extras=(
        Extra("languages", _languages_from_query, _languages_query),
        Extra("default_language", _language_from_query, _language_query),
        _switch_extra("adapter_reuse_layer_norm"),
        _switch_extra("ln_before_adapter"),
    ),
    backbone=backbone,
    formula=formula,
    architectures=tuple(renamed(arch, "Roberta", "Xmod") for arch in roberta.FAMILY.architectures),
    title={"en": "X-MOD", "zh": "X-MOD"},
    # The languages and their order from the checkpoint's model card (its adapter table,
    # 81 entries); the sizes are XLM-R base's (the card: it reuses XLM-R's tokenizer),
    # post-norm (the pre-norm release is the large one). Class as the hub lists it.
    presets=(
        Preset("facebook/xmod-base", xmod_config(768, 12, 12, False), "XmodForMaskedLM"),
    ),
    sample=sample,
    rank=28,
    peft_targets=(),  # peft 0.21.2 names no default targets for xmod
    labels=LABELS_,
)
