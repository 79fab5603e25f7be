"""Every shared word the views, the CLI and the page print, in English and Chinese, and the one helper that picks one.

Labels live here (not in templates or JavaScript) so that the site, the CLI
and the in-page calculator use the same words, and a test can check that
each key exists in both languages. Other tables of words (the page's
:data:`calculator.page.labels.UI_LABELS`, peft's warnings, the tools' names in
:mod:`calculator.counts`, a family's own ``labels``) are built with :func:`L` and
read with :func:`pick`: outside this module and the renderers
(``calculator/views/``) no code asks which language it is writing.
"""
from __future__ import annotations

from typing import Any, Mapping

#: The languages every word exists in; anything else is read as English.
LANGS: tuple[str, ...] = ("en", "zh")


def norm_lang(lang: Any) -> str:
    """"zh" or "en": anything else (a missing or unknown value) is English."""
    return "zh" if lang == "zh" else "en"


def L(en: str, zh: str) -> dict[str, str]:
    """A word in both languages: the one way every table of words is written."""
    return {"en": en, "zh": zh}


def pick(entry: Mapping[str, str], lang: Any, **params: object) -> str:
    """``entry``'s text in ``lang``, with ``{placeholders}`` filled."""
    text = entry[norm_lang(lang)]
    return text.format(**params) if params else text


LABELS: dict[str, dict[str, str]] = {
    # component groups (calculator.model.GROUPS)
    "embeddings": {"en": "Embeddings", "zh": "嵌入层"},
    "vision": {"en": "Vision tower", "zh": "视觉塔"},
    "attention_qkv": {"en": "Attention Q, K, V", "zh": "注意力 Q、K、V"},
    "attention_output": {"en": "Attention output", "zh": "注意力输出投影"},
    "feed_forward": {"en": "Feed-forward", "zh": "前馈网络"},
    "layer_norm": {"en": "LayerNorm", "zh": "层归一化"},
    "relative_position": {"en": "Relative positions", "zh": "相对位置"},
    "pooler": {"en": "Pooler", "zh": "池化层"},
    "head": {"en": "Task head", "zh": "任务头"},
    # sections of the hierarchical breakdown
    "encoder": {"en": "Encoder layers", "zh": "编码器层"},
    "decoder": {"en": "Decoder layers", "zh": "解码器层"},
    # report words
    "total": {"en": "Total parameters", "zh": "总参数量"},
    "trainable": {"en": "Trainable", "zh": "可训练参数量"},
    "non_trainable": {"en": "Non-trainable", "zh": "不可训练参数量"},
    "state_dict_total": {"en": "Summed over state_dict entries", "zh": "state_dict 中的元素总数"},
    "tensor": {"en": "Tensor", "zh": "张量"},
    # keras-bert's entries are Keras weights (model.weights), not state_dict tensors.
    "weight": {"en": "Weight", "zh": "权重"},
    "shape": {"en": "Shape", "zh": "形状"},
    "count": {"en": "Parameters", "zh": "参数量"},
    "share": {"en": "Share", "zh": "占比"},
    "group": {"en": "Component", "zh": "组件"},
    "layer": {"en": "Layer", "zh": "层"},
    "per_layer": {"en": "Per layer", "zh": "每层"},
    "layer_n": {"en": "Layer {n}", "zh": "第 {n} 层"},
    "layer_group_n": {"en": "Shared layer group {n}", "zh": "共享层组 {n}"},
    "encoder_layer_n": {"en": "Encoder layer {n}", "zh": "编码器第 {n} 层"},
    "decoder_layer_n": {"en": "Decoder layer {n}", "zh": "解码器第 {n} 层"},
    "times_layers": {"en": "{per} × {n} layers = {total}", "zh": "{per} × {n} 层 = {total}"},
    "tied_to": {"en": "tied to {name}, counted once", "zh": "与 {name} 共享，只计一次"},
    # The owner of a tie whose first name in named_parameters() is another (XLM-R's head comes first).
    "first_named": {
        "en": "named {name} first in named_parameters(); counted here",
        "zh": "named_parameters() 中它首次出现的名字是 {name}；计在这一行",
    },
    "buffer_note": {
        "en": "a buffer: in state_dict and the saved file, not a parameter",
        "zh": "buffer（缓冲区）：在 state_dict 和保存的文件里，不是参数",
    },
    "subtotal": {"en": "Subtotal", "zh": "小计"},
    # The two "backbone" splits. One: the whole embedding layer (its tables, LayerNorm and any
    # projection) and everything after it, which is what people usually call the backbone.
    # A class other than the family's base model: its difference to it (issue 22, item 1).
    "class_difference": {
        "en": "{architecture} has {amount} {more_or_less} parameters than the base model, {base}",
        "zh": "{architecture} 比基础模型 {base} {more_or_less} {amount} 个参数",
    },
    "class_more": {"en": "more", "zh": "多"},
    "class_less": {"en": "fewer", "zh": "少"},
    "class_adds": {"en": "adds {module}: {count}", "zh": "新增 {module}：{count}"},
    "class_drops": {"en": "without {module}: {count}", "zh": "去掉 {module}：{count}"},
    "embedding_params": {"en": "Embedding layer (all of it, LayerNorm included)", "zh": "嵌入层（整层，含层归一化）"},
    "non_embedding_params": {
        "en": "Everything after the embedding layer (the usual “backbone”)",
        "zh": "嵌入层以外的部分（常说的“主干”）",
    },
    # The other: transformers' own definition, every nn.Embedding weight left out, the embedding LayerNorm kept.
    "num_parameters_exclude_embeddings": {
        "en": "transformers' num_parameters(exclude_embeddings=True)",
        "zh": "transformers 的 num_parameters(exclude_embeddings=True)",
    },
    "formula": {"en": "Formula", "zh": "公式"},
    "memory": {"en": "Weight memory", "zh": "权重本身占用的内存/显存"},
    "dtype": {"en": "dtype", "zh": "数据类型"},
    "bytes": {"en": "Bytes", "zh": "字节"},
    "model": {"en": "Model", "zh": "模型"},
    "architecture": {"en": "Architecture", "zh": "架构"},
    "per_layer_formula": {"en": "One layer", "zh": "单层"},
    "layers_formula": {"en": "All layers", "zh": "全部层"},
    "residual": {"en": "residual connection: 0 parameters", "zh": "残差连接：0 个参数"},
    "share_chart_title": {"en": "Where the {total} parameters of {model} are", "zh": "{model} 的 {total} 个参数分布在哪里"},
    "layer_diagram_title": {"en": "One encoder layer of {model}: {total} parameters", "zh": "{model} 的一个编码器层：{total} 个参数"},
    "pooler_on": {"en": "with pooler", "zh": "含池化层"},
    "pooler_off": {"en": "without pooler", "zh": "不含池化层"},
    # a total's short form, after the exact number: 109,482,240 (109.5M) / 109,482,240（约 1.095 亿）
    "about": {"en": "{short}", "zh": "约 {short}"},
    "num_parameters_all": {"en": "transformers' num_parameters()", "zh": "transformers 的 num_parameters()"},
    "counts_tool": {"en": "Tool", "zh": "工具"},
    # the fine-tuning plan (calculator.peft) in text and Markdown
    "lora": {"en": "LoRA", "zh": "LoRA"},
    "freeze": {"en": "Freezing", "zh": "冻结"},
    "warning_line": {"en": "warning: {message}", "zh": "警告：{message}"},
    "lora_added": {"en": "LoRA adds {n} tensors, {count} parameters", "zh": "LoRA 新增 {n} 个张量，共 {count} 个参数"},
    "lora_copies": {
        "en": "modules_to_save copies: {count} parameters (counted again in all params)",
        "zh": "modules_to_save 副本：{count} 个参数（在 all params 中再算一次）",
    },
    "trainable_of": {"en": "Trainable: {trainable} of {all} ({percent}%)", "zh": "可训练参数：{trainable} / {all}（{percent}%）"},
    # the CLI: how the config was read, and a file it cannot read
    "model_type_assumed": {
        "en": "Note: the config has no model_type, so it was read as {model_type}.",
        "zh": "注意：配置中没有 model_type，已按 {model_type} 处理。",
    },
    "file_unreadable": {"en": "cannot read {path}: {reason}", "zh": "无法读取 {path}：{reason}"},
    # a family's words every family may use in its formula
    "final_norm": {"en": "Final norm (final_norm)", "zh": "最后的层归一化（final_norm）"},
}


#: Keys of the words families declare for themselves (``Family.labels``), so a formula line can be
#: checked where it is written (:class:`calculator.formula.FormulaLine`).
FAMILY_WORDS: set[str] = set()


def declare_family_words(keys: Any) -> None:
    """Called by each family's declaration with the keys of its own words."""
    FAMILY_WORDS.update(keys)


def has_words(key: str) -> bool:
    """Whether ``key`` has words: shared (:data:`LABELS`) or declared by a family."""
    return key in LABELS or key in FAMILY_WORDS


def label(key: str, lang: str = "en", **params: object) -> str:
    """The label for ``key`` in ``lang`` ("en" or "zh"), with ``{placeholders}`` filled."""
    entry = LABELS.get(key)
    if entry is None:
        raise KeyError(f"no words for {key!r}: add it to calculator.i18n.LABELS or to the family's labels")
    return pick(entry, lang, **params)


#: Punctuation and spacing, which differ between the languages: full-width in Chinese,
#: and a space between Chinese and a Latin word but none before full-width brackets.
PUNCTUATION: dict[str, dict[str, str]] = {
    "colon": L(": ", "："),
    "clause_sep": L("; ", "；"),
    #: Brackets right after a word: "(12,345: tied …)", "（12,345：…）".
    "paren": L("({})", "（{}）"),
    #: Brackets after a space in English, none in Chinese: "BertModel (bert)", "BertModel（bert）".
    "aside": L(" ({})", "（{}）"),
    #: Lists: "a, b, c" / "a、b、c"; the last of a choice: "a, b or c" / "a、b 或 c".
    "list_sep": L(", ", "、"),
    "or": L(" or ", " 或 "),
    "and": L(" and ", " 和 "),
    #: Emphasis in Markdown: italics in English, bold in Chinese (no synthetic italics on CJK).
    "emphasis": L("*", "**"),
    #: Before a Latin word inside a sentence: Chinese sets it off with a space.
    "latin_gap": L("", " "),
    #: Between two sentences: a space in English, none after a full stop in Chinese.
    "sentence_gap": L(" ", ""),
}


def punct(key: str, lang: Any) -> str:
    """A mark from :data:`PUNCTUATION` in ``lang``."""
    return PUNCTUATION[key][norm_lang(lang)]


def colon(lang: Any) -> str:
    return punct("colon", lang)


def paren(text: str, lang: Any, aside: bool = False) -> str:
    """``text`` in brackets; ``aside``: after a word, as "BertModel (bert)" / "BertModel（bert）"."""
    return punct("aside" if aside else "paren", lang).format(text)


def join_list(items: Any, lang: Any) -> str:
    """Names in a sentence: "a, b, c" in English, "a、b、c" in Chinese."""
    return punct("list_sep", lang).join(str(i) for i in items)


def join_all(items: Any, lang: Any) -> str:
    """"a, b and c" / "a、b 和 c" (a single name alone)."""
    items = [str(i) for i in items]
    if len(items) < 2:
        return "".join(items)
    return join_list(items[:-1], lang) + punct("and", lang) + items[-1]


def join_choice(items: Any, lang: Any) -> str:
    """"a, b or c" / "a、b 或 c" (a single name alone)."""
    items = [str(i) for i in items]
    if len(items) < 2:
        return "".join(items)
    return join_list(items[:-1], lang) + punct("or", lang) + items[-1]
