"""The in-page calculator's entry point: one call per user action, answered in plain data.

The page (``docs/calculator.md``) runs this module twice over:

* at build time, in CPython, ``sitegen/calculator_assets.py`` calls
  :func:`render_widget` to write the form and the default result
  (bert-base-uncased, ``BertModel`` with its pooler) into the HTML, so an exact
  answer is on screen before any script has run;
* in the browser, ``docs/assets/js/worker.js`` loads this same package into
  Pyodide and calls :func:`compute_json` for every later result.

Both paths render results with :func:`render_result`, so the first answer and
every later one are the same markup. Everything the page prints comes from
here or from the modules it imports (labels included: :data:`UI_LABELS`); the
JavaScript only moves strings around. User input never reaches the result
markup unescaped: every value is validated by :func:`calculator.build.build`
and escaped again on the way out. Error messages (which quote user input) are
returned as text, and the page inserts them with ``textContent``.

Standard library only, like the rest of the package.
"""
from __future__ import annotations

import importlib.util
import json
import traceback
from typing import Any, Mapping

from . import views
from .build import DEFAULT_MODEL_TYPE, build
from .charts import share_chart_svg
from .config import coerce_int, parse_json
from .errors import CalcError
from .families import FAMILIES
from .families.base import Family
from .i18n import label
from .model import Inventory
from .presets import DEFAULT_PRESET, PRESETS, get_preset
from .views import escape

def _find_active() -> Any:
    """calculator.active, imported on first use (it pulls in ``fractions``, which the
    browser would otherwise compile before its first answer); None if it is absent."""
    global _active
    if _active is False:
        try:
            from . import active as module
        except ImportError:  # pragma: no cover - depends on the checkout
            module = None
        _active = module
    return _active


#: ``False`` until :func:`_find_active` has looked; then the module or None.
_active: Any = False
_HAS_ACTIVE = importlib.util.find_spec(__package__ + ".active") is not None

#: Query key of the share of feed-forward neurons active per token (not a config.json key).
ACTIVE_KEY = "active_fraction"

LANGS = ("en", "zh")

#: Query keys that are not config.json fields.
STATE_KEYS = ("preset", "model_type", "architecture", "pooler", ACTIVE_KEY)

#: The state the page opens in, and the one pre-rendered at build time.
DEFAULT_PARAMS: dict[str, str] = {"preset": DEFAULT_PRESET}

#: Words the calculator page needs on top of :data:`calculator.i18n.LABELS`.
UI_LABELS: dict[str, dict[str, str]] = {
    "form_title": {"en": "Model", "zh": "模型"},
    "preset": {"en": "Start from a published model", "zh": "从公开的预训练模型开始"},
    "preset_custom": {"en": "(custom values)", "zh": "（自定义数值）"},
    "model_type": {"en": "Model family", "zh": "模型系列"},
    "architecture": {"en": "Architecture / task head", "zh": "架构 / 任务头"},
    "pooler": {"en": "Include the pooler", "zh": "包含池化层"},
    "pooler_choice": {
        "en": "Only the base model lets you choose whether it has a pooler (add_pooling_layer).",
        "zh": "只有基础模型可以选择是否带池化层（add_pooling_layer）。",
    },
    "pooler_fixed_on": {"en": "{architecture} always has a pooler.", "zh": "{architecture} 始终包含池化层。"},
    "pooler_fixed_off": {"en": "{architecture} has no pooler.", "zh": "{architecture} 不含池化层。"},
    "fields_legend": {"en": "{family} hyperparameters (config.json keys)", "zh": "{family} 超参数（config.json 中的键）"},
    # Families that are not configured by a config.json (FIELDS_LEGEND): what their keys really are.
    "fields_legend_keras": {"en": "{family} arguments", "zh": "{family} 参数"},
    "fields_legend_transformer": {
        "en": "{family}: arguments of Transformer() in attention-is-all-you-need-pytorch",
        "zh": "{family}：attention-is-all-you-need-pytorch 中 Transformer() 的构造参数",
    },
    "not_used": {"en": "Not used by {architecture}.", "zh": "{architecture} 不使用此项。"},
    "config_title": {"en": "Paste or drop a config.json", "zh": "粘贴或拖入 config.json"},
    "config_label": {
        "en": "config.json from a Hugging Face model (paste it here, or drop the file on this box)",
        "zh": "Hugging Face 模型的 config.json（粘贴到这里，或把文件拖到此框中）",
    },
    "config_file": {"en": "…or choose a file", "zh": "……或选择文件"},
    "config_apply": {"en": "Use this config", "zh": "应用此配置"},
    "config_applied": {"en": "Config applied.", "zh": "已应用该配置。"},
    "active_fraction": {
        "en": "Fraction of feed-forward neurons active per token",
        "zh": "每个 token 激活的前馈神经元比例",
    },
    "active_hint": {
        "en": "1 for a dense model; e.g. 12/4095 for UltraFastBERT. Changes what one token uses, not what is stored.",
        "zh": "稠密模型为 1；例如 UltraFastBERT 为 12/4095。它改变的是单个 token 用到的参数，而不是存储的参数。",
    },
    "active_title": {"en": "Used per token", "zh": "每个 token 用到的参数"},
    "active_summary": {
        "en": "With {fraction} of the feed-forward neurons active, one token uses {active} of the {stored} stored parameters ({share}).",
        "zh": "前馈神经元中有 {fraction} 处于激活状态时，每个 token 用到 {stored} 个存储参数中的 {active} 个（{share}）。",
    },
    "active_ff": {"en": "Feed-forward parameters stored", "zh": "存储的前馈参数"},
    "active_ff_used": {"en": "Feed-forward parameters used per token", "zh": "每个 token 用到的前馈参数"},
    "active_used": {"en": "Parameters used per token", "zh": "每个 token 用到的参数"},
    "active_stored": {"en": "Parameters stored (unchanged)", "zh": "存储的参数（不变）"},
    "copy_link": {"en": "Copy link", "zh": "复制链接"},
    "copy_markdown": {"en": "Copy as Markdown", "zh": "复制为 Markdown"},
    "copy_text": {"en": "Copy as text", "zh": "复制为纯文本"},
    "copied": {"en": "Copied.", "zh": "已复制。"},
    "copy_stale": {
        "en": "Not copied: fix the marked input first; the result shown is out of date.",
        "zh": "未复制：请先修正标红的输入项，当前结果未更新。",
    },
    "copy_stale_general": {
        "en": "Not copied: the inputs have an error (see the message above); the result shown is out of date.",
        "zh": "未复制：输入有误（见上方提示），当前结果未更新。",
    },
    "copy_failed": {
        "en": "Could not copy: the browser refused access to the clipboard.",
        "zh": "复制失败：浏览器拒绝访问剪贴板。",
    },
    "status_loading": {
        "en": "Loading Python in your browser… The total above is already exact.",
        "zh": "正在浏览器中加载 Python……上面的总数已是精确值。",
    },
    "status_loading_other": {
        "en": "Loading Python in your browser… Until then this is bert-base-uncased's result.",
        "zh": "正在浏览器中加载 Python……在此之前显示的是 bert-base-uncased 的结果。",
    },
    "status_ready": {"en": "Ready: results update as you type.", "zh": "已就绪：输入时结果随之更新。"},
    "status_failed": {
        "en": "The calculator could not start in this browser ({detail}). The tables below are bert-base-uncased's, "
        "computed when this page was built; the command line gives every other model: python -m calculator --help.",
        "zh": "计算器无法在此浏览器中启动（{detail}）。下方表格是构建页面时算好的 bert-base-uncased 结果；"
        "其他模型可以用命令行计算：python -m calculator --help。",
    },
    "stale": {
        "en": "Out of date: this is the result for the last valid input.",
        "zh": "结果未更新：当前显示的是上一次有效输入的结果。",
    },
    # A link whose inputs have an error: nothing was computed for it, the page still shows its default.
    "stale_link": {
        "en": "This link's inputs have an error, so nothing is calculated for it: the result shown is "
        "bert-base-uncased's, the page's default.",
        "zh": "这个链接里的输入有误，尚未计算：当前显示的是页面默认模型 bert-base-uncased 的结果。",
    },
    "stale_fix_field": {"en": "Fix the marked field to update it.", "zh": "修正标红的输入项即可更新。"},
    # Two fields marked (hidden size and heads that do not divide): changing either one fixes it.
    "stale_fix_fields": {
        "en": "Change one of the marked fields to update it.",
        "zh": "修改任一标红的输入项即可更新。",
    },
    "stale_fix_general": {
        "en": "Change the inputs as the message above says to update it.",
        "zh": "按上方提示修改输入后，结果会更新。",
    },
    "error_internal": {
        "en": "Something went wrong inside the calculator; the last result is kept. Please copy the link and report it.",
        "zh": "计算器内部出错，已保留上一次的结果。请复制当前链接并反馈给我们。",
    },
    "result_title": {"en": "Breakdown", "zh": "明细"},
    "summary_title": {"en": "Result", "zh": "结果"},
    "short_form": {"en": "about {short}", "zh": "约 {short}"},
    "breakdown_title": {"en": "By component", "zh": "按组件划分"},
    "sections_title": {"en": "By part of the model", "zh": "按模型部分划分"},
    "per_layer_title": {"en": "Per encoder layer", "zh": "每个编码器层"},
    "per_group_title": {"en": "Per shared layer group", "zh": "每个共享层组"},
    "per_block_title": {"en": "Per layer: the encoder's, then the decoder's", "zh": "每层：先编码器，后解码器"},
    "formula_title": {"en": "The formula, with these numbers", "zh": "代入这些数值的公式"},
    "memory_title": {"en": "Memory for the weights alone", "zh": "权重本身占用的内存/显存"},
    "memory_note": {
        "en": "Weights only: no gradients, optimizer state or activations.",
        "zh": "仅权重本身：不含梯度、优化器状态和激活值。",
    },
    "bytes_per_param": {"en": "Bytes per parameter", "zh": "每个参数的字节数"},
    "size": {"en": "Size", "zh": "大小"},
    "tensors_title": {"en": "Every tensor ({n} entries in state_dict)", "zh": "全部张量（state_dict 中 {n} 项）"},
    # keras-bert has no state_dict: its tensors are the Keras model's weights.
    "tensors_title_keras": {"en": "Every weight ({n} in model.weights)", "zh": "全部权重（model.weights 中共 {n} 个）"},
    "chart_title": {"en": "Where the parameters are", "zh": "参数分布"},
    "announce": {"en": "{model}: {total} parameters ({short}).", "zh": "{model}：{total} 个参数（{short}）。"},
    "tied_once": {"en": "tied", "zh": "共享"},
    "keras_title": {
        "en": "Keras summary: model.summary(), {n} rows",
        "zh": "Keras 的 summary：model.summary() 的输出，共 {n} 行",
    },
    "keras_note": {
        "en": "The rows Keras prints, in its order; layers without parameters (inputs, Add, Dropout, …) included.",
        "zh": "按 Keras 的打印顺序列出所有行，包括没有参数的层（输入层、Add、Dropout 等）。",
    },
    "keras_layer": {"en": "Layer (type)", "zh": "层（类型）"},
    "keras_params": {"en": "Param #", "zh": "参数量"},
    "keras_trainable": {"en": "Trainable", "zh": "可训练"},
    "keras_yes": {"en": "yes", "zh": "是"},
    "keras_no": {"en": "no", "zh": "否"},
    "keras_total": {"en": "Total params", "zh": "总参数量"},
    "keras_trainable_total": {"en": "Trainable params", "zh": "可训练参数量"},
    "keras_non_trainable_total": {"en": "Non-trainable params", "zh": "不可训练参数量"},
    "extras_note": {
        "en": "Also in effect (config.json keys without a field here): {keys}",
        "zh": "以下 config.json 键同样生效（表单中没有对应的输入项）：{keys}",
    },
    "default_note": {
        "en": "Every input is in the page address, so a copied link opens this exact result.",
        "zh": "所有输入都保存在页面地址中，复制的链接会打开完全相同的结果。",
    },
}

def fields_legend(model_type: str, lang: str = "en") -> str:
    """The legend of a family's fieldset: its title, and what its keys are (config.json or arguments)."""
    fam = FAMILIES[model_type]
    text = ui(fam.legend, lang, family=fam.title.get(_lang(lang), model_type))
    # No space after a full-width bracket: "Transformer（…）超参数".
    return text.replace("） ", "）")


def family_option(model_type: str, lang: str = "en") -> str:
    """A family as the model-family menu names it: its title, and the ``model_type`` a config.json has.

    Families without a config.json (keras-bert, the 2018 Transformer) show their
    title alone: their ``model_type`` is only this site's name for them, and the
    longer titles must fit the menu on a phone.
    """
    family = FAMILIES[model_type]
    title = family.title.get(_lang(lang), model_type)
    if not family.config_json:
        return title
    return f"{title}（{model_type}）" if _lang(lang) == "zh" else f"{title} ({model_type})"


def _lang(lang: Any) -> str:
    return "zh" if lang == "zh" else "en"


def ui(key: str, lang: str = "en", **params: Any) -> str:
    """A page label: :data:`UI_LABELS` first, then the shared :data:`calculator.i18n.LABELS`."""
    entry = UI_LABELS.get(key)
    if entry is None:
        return label(key, lang, **params)
    text = entry[_lang(lang)]
    return text.format(**params) if params else text


def field_label(family: Family, key: str, lang: str = "en") -> str:
    """What a config key means, as the family declares it (DistilBERT's n_layers is not the 2018 Transformer's)."""
    f = family.field(key)
    return f.label[_lang(lang)] if f is not None and f.label else key


# ----------------------------------------------------------------- the state


def _param(params: Mapping[str, Any], key: str) -> Any:
    value = params.get(key)
    return None if value is None or value == "" else value


def _family_of(model_type: Any) -> Family | None:
    return FAMILIES.get(model_type) if isinstance(model_type, str) else None


def extra_keys(model_type: Any) -> tuple[str, ...]:
    """config.json keys that change a result but have no field in the form (kept in the share link).

    * ``pad_token_id`` where the family has a ``vocab_size``: ``nn.Embedding`` refuses a
      padding row outside the table (:func:`calculator.build.check_padding`), so it decides
      which sizes are accepted;
    * the family's own :attr:`Family.extras` (keras-bert's ``dropout_rate`` and ``trainable``).
    """
    family = _family_of(model_type)
    if family is None:
        return ()
    keys: tuple[str, ...] = ()
    if family.field("vocab_size") is not None:
        keys += ("pad_token_id",)
    return keys + tuple(e.key for e in family.extras)


def _extra_from_query(family: Family, key: str, value: Any) -> Any:
    """A query string (or a JSON value from a pasted config) for an extra key, as config.json holds it."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if key == "pad_token_id":
        return None if text == "null" else coerce_int(key, text)
    for extra in family.extras:
        if extra.key == key:
            return extra.parse(text)
    return text


def _resolve(params: Mapping[str, Any]) -> tuple[dict[str, Any], Any, Any, Any]:
    """(raw config, architecture, pooler, preset name) from query-style parameters.

    A preset supplies the starting values; ``model_type`` and any field in the
    parameters override it (a ``model_type`` other than the preset's drops the
    preset's values, whose keys would mean nothing to the other family). The
    family's :func:`extra_keys` are taken too, so a share link carries them.
    """
    preset_name = _param(params, "preset")
    preset = get_preset(preset_name) if preset_name is not None else None
    model_type = _param(params, "model_type")
    if model_type is None:
        model_type = preset.config["model_type"] if preset else DEFAULT_MODEL_TYPE
    raw: dict[str, Any] = {}
    if preset is not None and preset.config.get("model_type") == model_type:
        raw.update(preset.config)
    raw["model_type"] = model_type
    family = _family_of(model_type)
    if family is not None:
        for f in family.fields:
            if f.key in params:
                raw[f.key] = params[f.key]
        for key in extra_keys(model_type):
            value = _param(params, key)
            if value is not None:
                raw[key] = _extra_from_query(family, key, value)
    return raw, _param(params, "architecture"), _param(params, "pooler"), preset_name


def _padding_row(value: Any) -> int | None:
    """``pad_token_id`` as :func:`calculator.build.check_padding` uses it: a row index, or None (no check)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def extra_query(raw: Mapping[str, Any], model_type: str, config: Mapping[str, Any]) -> dict[str, str]:
    """The :func:`extra_keys` whose value is not the family's default, as query strings.

    ``raw`` is the config as given, ``config`` the values :func:`build` read from it
    (``Inventory.config``).
    """
    family = FAMILIES[model_type]
    out: dict[str, str] = {}
    if family.field("vocab_size") is not None:
        pad = _padding_row(raw.get("pad_token_id", family.pad_token_id))
        if pad != _padding_row(family.pad_token_id):
            out["pad_token_id"] = "null" if pad is None else str(pad)
    for extra in family.extras:
        text = extra.to_query(raw, config)
        if text is not None:
            out[extra.key] = text
    return out


#: Each preset's values as :func:`build` reads them (defaults filled in), filled on first use.
_PRESET_VALUES: dict[str, tuple[dict[str, Any], dict[str, str]]] = {}


def _preset_values(name: str) -> tuple[dict[str, Any], dict[str, str]]:
    """(every field but num_labels, extra query) of a preset, read the way :func:`build` reads a config."""
    if name not in _PRESET_VALUES:
        raw = PRESETS[name].config
        family = FAMILIES[raw["model_type"]]
        config = family.read_config(raw)
        values = {k: v for k, v in config.items() if k != "num_labels"}
        _PRESET_VALUES[name] = (values, extra_query(raw, family.model_type, config))
    return _PRESET_VALUES[name]


def _matching_preset(name: Any, inv: Inventory, extras: Mapping[str, str]) -> str | None:
    """The preset whose values the inventory was built from, whatever the route (preset, typed, pasted, link).

    Values are compared with the family's defaults filled in, except ``num_labels``
    (the task's, not the checkpoint's: picking a preset keeps it). The architecture
    does not matter (a preset is its sizes). Some checkpoints share every size
    (bert-base-chinese and hfl/chinese-roberta-wwm-ext): the preset asked for wins,
    then one published with this architecture, then the first listed.
    """
    values = {k: v for k, v in inv.config.items() if k != "num_labels"}
    found = [
        p for p, preset in PRESETS.items()
        if preset.config["model_type"] == inv.model_type and _preset_values(p) == (values, dict(extras))
    ]
    if not found:
        return None
    if name in found:
        return name
    for p in found:
        if PRESETS[p].published_architecture == inv.architecture:
            return p
    return found[0]


def _query_value(value: Any) -> str:
    """A value as the address and the form write it: 1/0 for flags, ``a|b`` for a list of names."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (tuple, list)):
        return "|".join(str(v) for v in value)
    if value is None:
        return ""
    return str(value)


#: Each family's values with nothing given (HF's defaults, dependent ones worked out), filled on first use.
_FAMILY_DEFAULTS: dict[str, dict[str, str]] = {}


def family_defaults(family: Family) -> dict[str, str]:
    """The form's text for each field of ``family`` when config.json gives nothing."""
    if family.model_type not in _FAMILY_DEFAULTS:
        values = family.read_config({"model_type": family.model_type})
        _FAMILY_DEFAULTS[family.model_type] = {k: _query_value(v) for k, v in values.items()}
    return _FAMILY_DEFAULTS[family.model_type]


def form_values(family: Family, raw: Mapping[str, Any]) -> dict[str, str]:
    """The form's text for each field, for a config (a preset's): what build() reads, as the address writes it."""
    return {k: _query_value(v) for k, v in family.read_config(raw).items() if family.field(k) is not None}


def _active_of(params: Mapping[str, Any], inv: Inventory) -> tuple[str | None, Any]:
    """(canonical text, :class:`calculator.active.ActiveParameters` or None) for the active-neuron field.

    The default, 1 (every neuron), needs no computation and shows nothing extra.
    """
    if not _HAS_ACTIVE:
        return None, None
    value = _param(params, ACTIVE_KEY)
    text = "1" if value is None else (value.strip() if isinstance(value, str) else value)
    if text == "1":
        return "1", None
    module = _find_active()
    if module is None:  # pragma: no cover
        return None, None
    share = module.parse_fraction(text, ACTIVE_KEY, UI_LABELS["active_fraction"])
    return str(text), module.active_parameters(inv, share)


def canonical_query(
    inv: Inventory, preset: str | None = None, active: str | None = None, extras: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Every input of a result, with Hugging Face's key names: the page's share link.

    ``extras`` (:func:`extra_query`) are the config.json keys without a form field
    that still change the result, so opening the link gives the very same answer.
    """
    query: dict[str, str] = {}
    if preset:
        query["preset"] = preset
    query["model_type"] = inv.model_type
    query["architecture"] = inv.architecture
    query["pooler"] = _query_value(inv.pooler)
    family = FAMILIES[inv.model_type]
    for f in family.fields:
        if f.key in inv.config and inv.config[f.key] is not None:
            query[f.key] = _query_value(inv.config[f.key])
    query.update(extras or {})
    if active is not None:
        query[ACTIVE_KEY] = active
    return query


# ------------------------------------------------------------------- errors

#: Which form field an error belongs beside, when the error's ``key`` is not itself a field.
_ERROR_FIELDS: dict[str, tuple[str, ...]] = {
    "unknown_model_type": ("model_type",),
    "unknown_architecture": ("architecture",),
    "unknown_preset": ("preset",),
    "pooler_fixed": ("pooler",),
    "invalid_json": ("config",),
    "not_an_object": ("config",),
    # The message goes beside the first; the second is marked too (the two vocabularies must match).
    "vocab_mismatch": ("n_tgt_vocab", "n_src_vocab"),
    "labels_fixed": ("num_labels",),
}


#: Errors about two fields at once, by the parameters that name them: both are marked on the page.
_ERROR_FIELD_PAIRS = {
    "heads_not_divisor": ("heads_key", "hidden_key"),
}


def _error_fields(exc: CalcError, model_type: Any) -> list[str]:
    """The form fields ``exc`` is about, the one to show it beside first ([]: the page-level slot).

    Most errors concern one field. A rule between two (hidden size divisible by
    heads, equal vocabularies, ALBERT's groups × layers) names both: a reader who
    just edited either one should see it marked.
    """
    family = _family_of(model_type)
    names = {f.key for f in family.fields} if family else set()
    if exc.code in _ERROR_FIELD_PAIRS:
        keys = [exc.params.get(p) for p in _ERROR_FIELD_PAIRS[exc.code]]
        return [k for k in keys if isinstance(k, str) and k in names]
    if exc.code in _ERROR_FIELDS:
        first, *others = _ERROR_FIELDS[exc.code]
        return [first, *(k for k in others if k in names)]
    key = exc.params.get("key")
    if not isinstance(key, str):
        return []
    if key in ("pooler", ACTIVE_KEY) or key in names:
        return [key]
    # ALBERT's "num_hidden_groups × inner_group_num": every named field, the first one first.
    return [part for part in key.split(" × ") if part in names]


def error_dict(exc: CalcError, lang: str, model_type: Any = None, source: str = "form") -> dict[str, Any]:
    """``CalcError.to_dict`` plus the fields it belongs to; a pasted config's errors stay with the paste box.

    ``field`` is where the message goes by default (None: the page-level slot);
    ``fields`` lists every field to mark, ``field`` first (the page may put the
    message beside another of them: the one just edited).
    """
    out = exc.to_dict(lang, where="page")
    fields = ["config"] if source == "config" else _error_fields(exc, model_type)
    out["field"] = fields[0] if fields else None
    out["fields"] = fields
    return out


def internal_error(lang: str) -> dict[str, Any]:
    return {"code": "internal", "key": None, "field": None, "fields": [], "message": ui("error_internal", lang)}


# ------------------------------------------------------------------ results


def _cls(cls: str) -> str:
    return f' class="{cls}"' if cls else ""


def _td(text: str, cls: str = "") -> str:
    return f"<td{_cls(cls)}>{text}</td>"


def _table(head: list[tuple[str, str]], rows: list[str], cls: str) -> str:
    th = "".join(f'<th scope="col"{_cls(c)}>{escape(h)}</th>' for h, c in head)
    return (
        f'<div class="calc-scroll"><table class="calc-table {cls}"><thead><tr>{th}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def has_pooler_notion(model_type: str) -> bool:
    """Whether any class of the family has a pooler (BERT, RoBERTa, ALBERT).

    DistilBERT, ELECTRA, keras-bert and the 2018 Transformer have none in any
    class: "without pooler" would suggest something was left out.
    """
    family = _family_of(model_type)
    return family is not None and any(a.pooler is not False for a in family.architectures)


def model_title(inv: Inventory, preset: str | None, lang: str) -> str:
    parts = [preset] if preset else []
    parts.append(inv.architecture)
    if has_pooler_notion(inv.model_type):
        parts.append(label("pooler_on" if inv.pooler else "pooler_off", lang))
    return " · ".join(parts)


def _approx(value: float, lang: str) -> str:
    """A per-token count: exact when whole, else rounded with "≈"."""
    whole = round(value)
    text = views.fmt_int(whole, lang)
    return text if whole == value else "≈" + text


def _render_active(inv: Inventory, active: Any, lang: str) -> str:
    share = views.fmt_percent(active.active_share, lang)
    rows = [
        ("active_stored", inv.total, views.fmt_int(inv.total, lang)),
        ("active_ff", active.feed_forward, views.fmt_int(active.feed_forward, lang)),
        ("active_ff_used", active.feed_forward_active, _approx(active.feed_forward_active, lang)),
        ("active_used", active.active, _approx(active.active, lang)),
    ]
    body = "".join(
        f'<tr data-active="{k}" data-value="{v!r}">{_td(escape(ui(k, lang)))}{_td(escape(t), "num")}</tr>'
        for k, v, t in rows
    )
    summary = ui(
        "active_summary", lang, fraction=views.fmt_percent(active.fraction, lang),
        active=_approx(active.active, lang), stored=views.fmt_int(inv.total, lang), share=share,
    )
    return (
        f'<h3>{escape(ui("active_title", lang))}</h3><p class="calc-active-summary">{escape(summary)}</p>'
        + _table([(ui("active_title", lang), ""), (label("count", lang), "num")], [body], "calc-active")
    )


def render_summary(inv: Inventory, lang: str = "en", preset: str | None = None) -> str:
    """The answer at the top of the page: which model, and its exact total (``data-total``)."""
    lang = _lang(lang)
    total, short = inv.total, views.fmt_short(inv.total, lang)
    return (
        f'<p class="calc-model" data-architecture="{escape(inv.architecture)}">'
        f"{escape(model_title(inv, preset, lang))}</p>"
        '<p class="calc-total-box">'
        f'<span class="calc-total-label">{escape(label("total", lang))}</span> '
        f'<span class="calc-total" data-total="{total}" elementtiming="calc-total">'
        f"{escape(views.fmt_int(total, lang))}</span> "
        f'<span class="calc-short" data-short="{escape(short)}">{escape(ui("short_form", lang, short=short))}</span>'
        "</p>"
    )


def render_result(
    inv: Inventory, lang: str = "en", preset: str | None = None, active: Any = None, tensor_rows: bool = True
) -> str:
    """The breakdown under the total: facts, chart, tables, formula, memory, every tensor.

    Numbers also sit in ``data-*`` attributes (``data-count``, ``data-bytes``, …)
    so tests read them without parsing localized text. The collapsed per-tensor
    block (``data-rows="later"``) holds its rows in ``<noscript>`` with
    ``tensor_rows=True`` (the page as built), else none: :func:`tensor_table`
    supplies them separately and the page inserts them when the block is opened,
    so each keystroke does not rebuild hundreds of rows.
    """
    lang = _lang(lang)
    n = lambda v: views.fmt_int(v, lang)  # noqa: E731
    total = inv.total
    out: list[str] = []
    out.append(f'<h2 class="calc-result-title" id="calc-result-title">{escape(ui("result_title", lang))}</h2>')
    extra: list[tuple[str, int]] = []
    if inv.trainable != total:
        extra.append(("trainable", inv.trainable))
    if inv.state_dict_total != total:
        extra.append(("state_dict_total", inv.state_dict_total))
    emb, non_emb = views.embedding_split(inv)
    extra.extend([("embedding_params", emb), ("non_embedding_params", non_emb)])
    out.append(
        '<dl class="calc-facts">'
        + "".join(
            f'<div data-fact="{k}" data-count="{v}"><dt>{escape(label(k, lang))}</dt><dd>{escape(n(v))}</dd></div>'
            for k, v in extra
        )
        + "</dl>"
    )

    if active is not None and active.fraction != 1:
        out.append(_render_active(inv, active, lang))

    # Chart (module-generated SVG: every text in it is a label or a number).
    out.append(f'<h3>{escape(ui("chart_title", lang))}</h3>')
    out.append(f'<figure class="calc-chart">{share_chart_svg(inv, lang, preset or inv.architecture)}</figure>')

    # By component group.
    rows = [
        f'<tr data-group="{s.key}" data-count="{s.count}">'
        + _td(escape(label(s.key, lang)))
        + _td(escape(n(s.count)), "num")
        + _td(escape(views.fmt_percent(s.fraction, lang)), "num")
        + "</tr>"
        for s in views.group_breakdown(inv)
    ]
    rows.append(
        f'<tr class="calc-sum">{_td(escape(label("total", lang)))}{_td(escape(n(total)), "num")}'
        f'{_td(escape(views.fmt_percent(1.0 if total else 0.0, lang)), "num")}</tr>'
    )
    head = [(label("group", lang), ""), (label("count", lang), "num"), (label("share", lang), "num")]
    out.append(f'<h3>{escape(ui("breakdown_title", lang))}</h3>')
    out.append(_table(head, rows, "calc-groups"))

    # By section (embeddings / encoder / pooler / head), each split by group.
    rows = []
    for s in views.section_breakdown(inv):
        rows.append(
            f'<tr class="calc-section" data-section="{s.key}" data-count="{s.count}">'
            + _td(f"<strong>{escape(label(s.key, lang))}</strong>")
            + _td(f"<strong>{escape(n(s.count))}</strong>", "num")
            + _td(escape(views.fmt_percent(s.fraction, lang)), "num")
            + "</tr>"
        )
        if len(s.children) > 1:
            for c in s.children:
                rows.append(
                    "<tr>" + _td(escape(label(c.key, lang)), "calc-indent") + _td(escape(n(c.count)), "num")
                    + _td(escape(views.fmt_percent(c.fraction, lang)), "num") + "</tr>"
                )
    out.append(f'<h3>{escape(ui("sections_title", lang))}</h3>')
    out.append(_table(head, rows, "calc-sections"))

    # Per layer.
    layers = views.per_layer(inv)
    if layers:
        family = FAMILIES[inv.model_type]
        layer_row = family.layer_row

        def row_name(layer: int) -> str:
            if layer_row is None:
                return label("layer_n", lang, n=layer)
            return layer_row(layer, inv.config, lang)

        rows = [
            f'<tr data-layer="{r.layer}" data-count="{r.count}">'
            + _td(escape(row_name(r.layer)))
            + _td(escape(n(r.count)), "num")
            + "</tr>"
            for r in layers
        ]
        out.append(f'<h3>{escape(ui(family.per_layer_title, lang))}</h3>')
        out.append(_table([(label("layer", lang), ""), (label("count", lang), "num")], rows, "calc-layers"))

    # Formula with the numbers substituted.
    f = views.formula(inv)
    if f is not None:
        items = []
        for line in f.lines:
            items.append(
                f'<li data-formula="{escape(line.key)}" data-count="{line.value}">'
                f'<span class="calc-formula-key">{escape(views.formula_label(inv, line.key, lang))}</span>{"：" if lang == "zh" else ": "}'
                f"<code>{escape(line.symbolic)}</code> = <code>{escape(line.substituted)}</code> = "
                f"<strong>{escape(n(line.value))}</strong></li>"
            )
        symbols = ", ".join(f"{k} = {v}" for k, v in f.symbols.items())
        out.append(f'<h3>{escape(ui("formula_title", lang))}</h3>')
        out.append(
            f'<p class="calc-symbols"><code>{escape(symbols)}</code></p><ul class="calc-formula">{"".join(items)}</ul>'
            f'<p class="calc-formula-total">{escape(label("total", lang))} = <strong data-formula-total="{f.total}">'
            f"{escape(n(f.total))}</strong></p>"
        )

    # Weight memory by dtype.
    rows = [
        f'<tr data-dtype="{m.dtype}" data-bytes="{m.bytes}">'
        + _td(f"<code>{escape(m.dtype)}</code>")
        + _td(str(m.bytes_per_param), "num")
        + _td(escape(views.fmt_bytes(m.bytes, lang)), "num")
        + _td(escape(n(m.bytes)), "num")
        + "</tr>"
        for m in views.memory(inv)
    ]
    out.append(f'<h3>{escape(ui("memory_title", lang))}</h3>')
    out.append(
        _table(
            [(label("dtype", lang), ""), (ui("bytes_per_param", lang), "num"), (ui("size", lang), "num"),
             (label("bytes", lang), "num")],
            rows,
            "calc-memory",
        )
    )
    out.append(f'<p class="calc-note">{escape(ui("memory_note", lang))}</p>')

    if inv.keras_layers:
        out.append(keras_summary(inv, lang))

    # Every tensor, collapsed.
    title = "tensors_title_keras" if inv.keras_layers else "tensors_title"
    summary = f'<summary>{escape(ui(title, lang, n=len(inv.tensors)))}</summary>'
    # The rows arrive later (the page inserts them on opening), or, in the page as
    # built, inside <noscript>: shown as they are without scripts, and with scripts
    # one inert text node instead of a thousand elements to build at load.
    rows = f"<noscript>{tensor_table(inv, lang)}</noscript>" if tensor_rows else ""
    out.append(f'<details class="calc-tensors" data-rows="later">{summary}{rows}</details>')
    return "".join(out)


def keras_summary(inv: Inventory, lang: str = "en") -> str:
    """keras-bert only: the rows of ``model.summary()`` (zero-parameter layers included), collapsed.

    Each row carries ``data-keras-layer``, ``data-class``, ``data-count`` and
    ``data-trainable``; the footer is Keras's own three totals.
    """
    lang = _lang(lang)
    n = lambda v: views.fmt_int(v, lang)  # noqa: E731
    yes, no = ui("keras_yes", lang), ui("keras_no", lang)
    rows = [
        f'<tr data-keras-layer="{escape(k.name)}" data-class="{escape(k.cls)}" data-count="{k.count}" '
        f'data-trainable="{1 if k.trainable else 0}">'
        + _td(f'<code>{escape(k.name)}</code> <span class="calc-keras-class">({escape(k.cls)})</span>',
              "calc-keras-name")
        + _td(escape(n(k.count)), "num")
        + _td(escape(yes if k.trainable else no))
        + "</tr>"
        for k in inv.keras_layers
    ]
    for key, value in (("keras_total", inv.total), ("keras_trainable_total", inv.trainable),
                       ("keras_non_trainable_total", inv.non_trainable)):
        rows.append(
            f'<tr class="calc-sum" data-keras-total="{key}" data-count="{value}">'
            f'{_td(escape(ui(key, lang)))}{_td(escape(n(value)), "num")}{_td("")}</tr>'
        )
    head = [(ui("keras_layer", lang), ""), (ui("keras_params", lang), "num"), (ui("keras_trainable", lang), "")]
    return (
        '<details class="calc-keras" id="calc-keras-summary">'
        f'<summary>{escape(ui("keras_title", lang, n=len(inv.keras_layers)))}</summary>'
        f'<p class="calc-note">{escape(ui("keras_note", lang))}</p>'
        + _table(head, rows, "calc-keras-table")
        + "</details>"
    )


def tensor_table(inv: Inventory, lang: str = "en") -> str:
    """One row per ``state_dict`` entry (tied copies marked), for the collapsed "every tensor" block."""
    lang = _lang(lang)
    n = lambda v: views.fmt_int(v, lang)  # noqa: E731
    rows = []
    for t in inv.tensors:
        tied = ' data-tied="1"' if t.tied_to else ""
        note = f' <span class="calc-tied">({escape(label("tied_to", lang, name=t.tied_to))})</span>' if t.tied_to else ""
        rows.append(
            f'<tr data-name="{escape(t.name)}" data-count="{t.count}"{tied}>'
            + _td(f"<code>{escape(t.name)}</code>{note}", "calc-name")
            + _td(escape(views.fmt_shape(t.shape)), "num")
            + _td(escape(n(t.count)), "num")
            + _td(escape(label(t.group, lang)))
            + "</tr>"
        )
    name = label("weight" if inv.keras_layers else "tensor", lang)
    head = [(name, ""), (label("shape", lang), "num"), (label("count", lang), "num"), (label("group", lang), "")]
    return _table(head, rows, "calc-tensor-table")


def announcement(inv: Inventory, lang: str, preset: str | None = None) -> str:
    return ui(
        "announce", lang, model=preset or inv.architecture, total=views.fmt_int(inv.total, lang),
        short=views.fmt_short(inv.total, lang),
    )


def _ok(
    inv: Inventory, lang: str, raw: Mapping[str, Any], asked: Any = None, active_text: str | None = None,
    active: Any = None, tensor_rows: bool = False,
) -> dict[str, Any]:
    """The page's answer for ``inv``, built from ``raw``; ``asked`` is the preset the request named, if any."""
    extras = extra_query(raw, inv.model_type, inv.config)
    preset = _matching_preset(asked, inv, extras)
    return {
        "ok": True,
        "total": inv.total,
        "total_text": views.fmt_int(inv.total, lang),
        "short": views.fmt_short(inv.total, lang),
        "model_type": inv.model_type,
        "architecture": inv.architecture,
        "pooler": inv.pooler,
        "preset": preset,
        "query": canonical_query(inv, preset, active_text, extras),
        "summary_html": render_summary(inv, lang, preset),
        "html": render_result(inv, lang, preset, active, tensor_rows=tensor_rows),
        "tensors_html": tensor_table(inv, lang),
        "markdown": views.markdown_table(inv, lang),
        "text": views.text_report(inv, lang),
        "announce": announcement(inv, lang, preset),
    }


def compute(params: Mapping[str, Any], lang: str = "en", tensor_rows: bool = False) -> dict[str, Any]:
    """One result for query-style parameters (strings, as in the page's URL or form).

    Returns ``{"ok": True, "total": int, "html": str, "tensors_html": str,
    "query": {...}, "markdown": str, "text": str, ...}`` or
    ``{"ok": False, "error": {"code", "key", "field", "message"}}``. Never raises:
    anything but a :class:`CalcError` becomes the code ``internal``.
    """
    lang = _lang(lang)
    model_type = None
    try:
        if not isinstance(params, Mapping):
            raise CalcError("not_an_object", kind=type(params).__name__)
        model_type = params.get("model_type") or None
        raw, architecture, pooler, preset_name = _resolve(params)
        model_type = raw["model_type"]
        inv = build(raw, architecture, pooler)
        active_text, active = _active_of(params, inv)
        return _ok(inv, lang, raw, preset_name, active_text, active, tensor_rows)
    except CalcError as exc:
        return {"ok": False, "error": error_dict(exc, lang, model_type)}
    except Exception:  # noqa: BLE001 - the page shows a code, never a traceback
        return {"ok": False, "error": internal_error(lang), "detail": traceback.format_exc(limit=8)}


def compute_config(text: Any, lang: str = "en") -> dict[str, Any]:
    """A result for a pasted or dropped config.json (``architectures[0]`` picks the class).

    On success ``query`` holds the values the form should take over; errors
    belong to the paste box (``field == "config"``).
    """
    lang = _lang(lang)
    try:
        if not isinstance(text, str):
            raise CalcError("invalid_json", detail="not text")
        raw = parse_json(text)
        inv = build(raw)
        active_text, active = _active_of({}, inv)
        return _ok(inv, lang, raw, None, active_text, active)
    except CalcError as exc:
        return {"ok": False, "error": error_dict(exc, lang, None, source="config")}
    except Exception:  # noqa: BLE001
        return {"ok": False, "error": internal_error(lang), "detail": traceback.format_exc(limit=8)}


def compute_json(request: str, lang: str = "en") -> str:
    """The worker's single call: a JSON request in, a JSON answer out (no proxies cross the boundary).

    ``request`` is ``{"params": {...}}`` or ``{"config": "<config.json text>"}``.
    """
    try:
        req = json.loads(request)
        if isinstance(req, dict) and "config" in req:
            out = compute_config(req["config"], lang)
        else:
            out = compute(req.get("params", {}) if isinstance(req, dict) else req, lang)
    except Exception:  # noqa: BLE001
        out = {"ok": False, "error": internal_error(_lang(lang)), "detail": traceback.format_exc(limit=8)}
    return json.dumps(out, ensure_ascii=False)


# --------------------------------------------------------------------- form


def form_schema(lang: str = "en") -> dict[str, Any]:
    """What the page's script needs to drive the form: presets, families, fields, labels."""
    lang = _lang(lang)
    return {
        "lang": lang,
        "default": compute(DEFAULT_PARAMS, lang)["query"],
        # ``form``: each field's text as the form shows it (lists as a|b, derived defaults worked out).
        "presets": {
            name: {"model_type": p.config["model_type"], "config": p.config,
                   "form": form_values(FAMILIES[p.config["model_type"]], p.config)}
            for name, p in PRESETS.items()
        },
        "families": {
            mt: {
                "base": fam.base,
                "title": fam.title.get(lang, mt),
                "fields": [
                    {"key": f.key, "kind": f.kind, "default": family_defaults(fam)[f.key], "minimum": f.minimum,
                     "maximum": f.maximum}
                    for f in fam.fields
                ],
                "extras": list(extra_keys(mt)),
                "architectures": [
                    {"name": a.name, "pooler": a.pooler, "uses_num_labels": a.uses_num_labels,
                     "ties_embeddings": a.ties_embeddings}
                    for a in fam.architectures
                ],
            }
            for mt, fam in FAMILIES.items()
        },
        "labels": {key: entry[lang] for key, entry in UI_LABELS.items()},
        "active": ACTIVE_KEY if _HAS_ACTIVE else None,
    }


def _attr(value: Any) -> str:
    return escape(str(value))


def _pooler_hint(arch_pooler: bool | None, architecture: str, lang: str) -> str:
    if arch_pooler is None:
        return ui("pooler_choice", lang)
    return ui("pooler_fixed_on" if arch_pooler else "pooler_fixed_off", lang, architecture=architecture)


def render_form(query: Mapping[str, str], lang: str = "en") -> str:
    """The whole form, with one fieldset per family (all but the current one hidden and disabled).

    Rendered at build time so the form is on screen with the first paint; the
    script only switches fieldsets and fills values.
    """
    lang = _lang(lang)
    current = query.get("model_type", DEFAULT_MODEL_TYPE)
    arch_name = query.get("architecture", "")

    def err(field_id: str) -> str:
        return f'<p class="calc-err" id="{field_id}-error" data-error-for="{field_id}" hidden></p>'

    # Paste / drop a config.json: first, so it is in sight at the top of the input column
    # (below a long form it was under the fold of the column's own scroll area).
    out: list[str] = [
        '<details class="calc-config" id="calc-config-box">'
        f'<summary>{escape(ui("config_title", lang))}</summary>'
        f'<label for="calc-config">{escape(ui("config_label", lang))}</label>'
        '<textarea id="calc-config" rows="6" spellcheck="false" aria-describedby="calc-config-error"></textarea>'
        '<div class="calc-config-actions">'
        f'<button type="button" class="md-button" id="calc-config-apply">{escape(ui("config_apply", lang))}</button>'
        f'<label class="calc-file">{escape(ui("config_file", lang))} '
        '<input type="file" id="calc-config-file" accept=".json,application/json"></label>'
        "</div>"
        f"{err('calc-config')}</details>",
        '<form class="calc-form" id="calc-form" novalidate autocomplete="off">',
    ]

    # Preset.
    options = [f'<option value="">{escape(ui("preset_custom", lang))}</option>']
    for name in PRESETS:
        sel = " selected" if query.get("preset") == name else ""
        options.append(f'<option value="{_attr(name)}"{sel}>{escape(name)}</option>')
    out.append(
        '<div class="calc-field calc-wide">'
        f'<label for="calc-preset">{escape(ui("preset", lang))}</label>'
        f'<select id="calc-preset" name="preset" aria-describedby="calc-preset-error">{"".join(options)}</select>'
        f"{err('calc-preset')}</div>"
    )
    # Family.
    options = []
    for mt, fam in FAMILIES.items():
        sel = " selected" if mt == current else ""
        options.append(f'<option value="{_attr(mt)}"{sel}>{escape(family_option(mt, lang))}</option>')
    out.append(
        '<div class="calc-field">'
        f'<label for="calc-model_type">{escape(ui("model_type", lang))} <code>model_type</code></label>'
        f'<select id="calc-model_type" name="model_type" aria-describedby="calc-model_type-error">{"".join(options)}</select>'
        f"{err('calc-model_type')}</div>"
    )
    # Architecture: the options of the current family (the script swaps them).
    fam = FAMILIES.get(current) or FAMILIES[DEFAULT_MODEL_TYPE]
    arch_name = arch_name or fam.base
    options = [
        f'<option value="{_attr(a.name)}"{" selected" if a.name == arch_name else ""}>{escape(a.name)}</option>'
        for a in fam.architectures
    ]
    out.append(
        '<div class="calc-field">'
        f'<label for="calc-architecture">{escape(ui("architecture", lang))}</label>'
        f'<select id="calc-architecture" name="architecture" aria-describedby="calc-architecture-error">'
        f'{"".join(options)}</select>{err("calc-architecture")}</div>'
    )
    # Pooler.
    arch = fam.architecture(arch_name)
    fixed = arch.pooler if arch is not None else None
    checked = query.get("pooler", "1") == "1"
    out.append(
        '<div class="calc-field calc-check">'
        f'<input type="checkbox" id="calc-pooler" name="pooler"{" checked" if checked else ""}'
        f'{" disabled" if fixed is not None else ""} aria-describedby="calc-pooler-hint calc-pooler-error">'
        f'<label for="calc-pooler">{escape(ui("pooler", lang))}</label>'
        f'<p class="calc-hint" id="calc-pooler-hint">{escape(_pooler_hint(fixed, arch_name, lang))}</p>'
        f"{err('calc-pooler')}</div>"
    )
    # One fieldset per family.
    for mt, fam in FAMILIES.items():
        active = mt == current
        attrs = "" if active else " hidden disabled"
        out.append(
            f'<fieldset class="calc-fields" data-family="{_attr(mt)}"{attrs}>'
            f'<legend>{escape(fields_legend(mt, lang))}</legend>'
        )
        for f in fam.fields:
            fid = f"calc-{mt}-{f.key}"
            value = query.get(f.key) if active and f.key in query else None
            if f.kind == "bool":
                on = (value == "1") if value is not None else family_defaults(fam)[f.key] == "1"
                out.append(
                    f'<div class="calc-field calc-check" data-key="{_attr(f.key)}">'
                    f'<input type="checkbox" id="{fid}" name="{_attr(f.key)}"{" checked" if on else ""} '
                    f'aria-describedby="{fid}-hint {fid}-error">'
                    f'<label for="{fid}"><code>{escape(f.key)}</code> {escape(field_label(fam, f.key, lang))}</label>'
                    f'<p class="calc-hint" id="{fid}-hint"></p>{err(fid)}</div>'
                )
            else:
                shown = value if value is not None else family_defaults(fam)[f.key]
                mode = "numeric" if f.kind == "int" else "text"
                out.append(
                    f'<div class="calc-field" data-key="{_attr(f.key)}">'
                    f'<label for="{fid}"><code>{escape(f.key)}</code> {escape(field_label(fam, f.key, lang))}</label>'
                    f'<input type="text" inputmode="{mode}" id="{fid}" name="{_attr(f.key)}" value="{_attr(shown)}" '
                    f'spellcheck="false" aria-describedby="{fid}-hint {fid}-error">'
                    f'<p class="calc-hint" id="{fid}-hint"></p>{err(fid)}</div>'
                )
        out.append("</fieldset>")
    if _HAS_ACTIVE:
        fid = f"calc-{ACTIVE_KEY}"
        out.append(
            f'<div class="calc-field" data-key="{ACTIVE_KEY}">'
            f'<label for="{fid}">{escape(ui("active_fraction", lang))}</label>'
            f'<input type="text" inputmode="decimal" id="{fid}" name="{ACTIVE_KEY}" '
            f'value="{_attr(query.get(ACTIVE_KEY, "1"))}" spellcheck="false" aria-describedby="{fid}-hint {fid}-error">'
            f'<p class="calc-hint" id="{fid}-hint">{escape(ui("active_hint", lang))}</p>{err(fid)}</div>'
        )
    out.append(
        '<p class="calc-hint calc-extras" id="calc-extras" hidden></p>'
        "</form>"
    )
    return "".join(out)


def _json_for_script(value: Any) -> str:
    """JSON safe inside ``<script type="application/json">`` (no ``</script>``, no ``<!--``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_widget(lang: str = "en") -> str:
    """The calculator as the hook writes it into the page: form, status, default result, schema.

    No script but the schema (JSON): the page's scripts are files, added to
    ``<head>`` by ``sitegen/calculator_assets.py``.
    """
    lang = _lang(lang)
    first = compute(DEFAULT_PARAMS, lang, tensor_rows=True)  # the page without scripts shows every row
    if not first.get("ok"):  # a broken default must fail the build, not ship
        raise RuntimeError(f"calculator.api: the default state does not compute: {first}")
    query = first["query"]
    schema = form_schema(lang)
    # The pre-rendered result's copies, so the Copy buttons work before Python has loaded.
    schema["initial"] = {"query": query, "markdown": first["markdown"], "text": first["text"]}
    actions = "".join(
        f'<button type="button" class="md-button" data-copy="{kind}">{escape(ui("copy_" + kind, lang))}</button>'
        for kind in ("link", "markdown", "text")
    )
    return (
        f'<div class="calculator" id="calc-root" data-lang="{lang}" data-state="loading">'
        # The answer first, near the top of the document, so the first paint already shows it.
        f'<section class="calc-head" aria-label="{_attr(ui("summary_title", lang))}">'
        f'<div class="calc-summary" id="calc-summary">{first["summary_html"]}</div>'
        f'<p class="calc-status" id="calc-status" role="status">{escape(ui("status_loading", lang))}</p>'
        '<p class="calc-err calc-general-error" id="calc-general-error" hidden></p>'
        # What is stale, then what to do (a marked field, or the message above): calculator.js picks the second.
        '<p class="calc-stale-note" id="calc-stale-box" hidden>'
        f'<span id="calc-stale-note">{escape(ui("stale", lang))}</span>{"" if lang == "zh" else " "}'
        f'<span id="calc-stale-fix">{escape(ui("stale_fix_field", lang))}</span></p>'
        f'<div class="calc-actions">{actions}<span class="calc-copy-status" id="calc-copy-status" role="status"></span>'
        "</div>"
        f'<p class="calc-note">{escape(ui("default_note", lang))}</p>'
        "</section>"
        '<div class="calc-layout">'
        f'<section class="calc-inputs" aria-label="{_attr(ui("form_title", lang))}">'
        + render_form(query, lang)
        # On a phone the breakdown is below the form: this strip keeps the total in sight while typing.
        + '<p class="calc-mini" id="calc-mini" aria-hidden="true">'
        f'<span>{escape(label("total", lang))}</span> <strong>{escape(first["total_text"])}</strong> '
        f'<span class="calc-mini-short">{escape(first["short"])}</span></p>'
        + "</section>"
        '<section class="calc-outputs" aria-labelledby="calc-result-title">'
        '<div class="calc-live" id="calc-live" aria-live="polite" aria-atomic="true"></div>'
        f'<div class="calc-output" id="calc-output">{first["html"]}</div>'
        "</section></div>"
        f'<script type="application/json" id="calc-schema">{_json_for_script(schema)}</script>'
        "</div>"
    )
