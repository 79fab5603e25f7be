"""The training-step costs as text and Markdown in both languages, and the page panel's answer.

The CLI computes the step (:mod:`calculator.costs`) and appends :func:`render`
(text/Markdown) or puts :meth:`Costs.to_dict` under ``"costs"`` (JSON); the
worker protocol calls :func:`page_answer`.
"""
from __future__ import annotations

from typing import Any

from .. import costs
from ..errors import CalcError
from ..i18n import L, colon, pick, punct
from .numbers import display_width, fmt_binary_bytes
from .report import _table

LABELS: dict[str, dict[str, str]] = {
    "title": L("Training step", "训练一步"),
    "settings": {
        "en": "B = {batch}, L = {seq_len}, {dtype}, {optimizer}, gradient checkpointing {ckpt}",
        "zh": "B = {batch}，L = {seq_len}，{dtype}，{optimizer}，梯度检查点{ckpt}",
    },
    "on": L("on", "开启"),
    "off": L("off", "关闭"),
    "flops": L("FLOPs", "浮点运算量（FLOPs）"),
    "forward": L("forward", "前向"),
    "backward": L("backward", "反向"),
    "total": L("total", "合计"),
    "memory": L("Memory", "显存/内存"),
    "weights": L("weights", "权重"),
    "gradients": L("gradients", "梯度"),
    "optimizer": L("optimizer state", "优化器状态"),
    "activations": L("activations (saved for backward)", "激活值（为反向传播保存）"),
    # The page's table, whose group row already says "Memory": its short row label.
    "activations_short": L("activations", "激活值"),
    "item": L("Item", "项目"),
    "value": L("Value", "数值"),
    "size": L("Size", "大小"),
    "bytes": L("bytes", "字节"),
    # What FlopCounterMode counts: matmuls AND convolutions (SqueezeBERT's forward is mostly 1×1
    # convolutions), not elementwise work; a grouped convolution's weight gradient as if ungrouped.
    "note": {
        "en": "Exact for this step as PyTorch runs it on CPU (FlopCounterMode: 2 FLOPs per multiply-add, "
        "matrix multiplications and convolutions counted, elementwise operations not). The sum leaves out the "
        "framework's workspace, the caching allocator's rounding and fragmentation, and the CUDA context.",
        "zh": "这是 PyTorch 在 CPU 上运行这一步的精确值（FlopCounterMode：一次乘加记 2 次浮点运算，统计矩阵乘法和卷积，"
        "不统计逐元素运算）。合计不含框架的工作区、缓存分配器的取整和碎片，以及 CUDA 上下文。",
    },
    "grouped_note": {
        "en": "Note: this model has grouped convolutions, and FlopCounterMode counts the gradient of a grouped "
        "convolution's weight as if the convolution were ungrouped (g times its multiply-adds), so the backward "
        "here is higher than the multiply-adds it performs.",
        "zh": "注意：这个模型有分组卷积，FlopCounterMode 把分组卷积的权重梯度按不分组的卷积计数（多算 g 倍），"
        "所以这里的反向 FLOPs 高于实际的乘加次数。",
    },
}
#: The optimizers' names as the menu, the heading and the copies print them.
OPTIMIZER_NAMES = {"adamw": "AdamW", "sgd": "SGD", "sgd-momentum": "SGD (momentum)", "adafactor": "Adafactor"}
#: Names that differ in Chinese (full-width brackets, the word for momentum).
OPTIMIZER_NAMES_ZH = {"sgd-momentum": "SGD（带动量）"}


def optimizer_name(key: str, lang: str = "en") -> str:
    """The optimizer's name in ``lang`` ("SGD (momentum)" / "SGD（带动量）")."""
    if lang == "zh" and key in OPTIMIZER_NAMES_ZH:
        return OPTIMIZER_NAMES_ZH[key]
    return OPTIMIZER_NAMES.get(key, key)


def grouped_convolutions(inv: Any) -> bool:
    """Whether the model has a convolution with groups > 1, whose weight gradient FlopCounterMode
    counts as ungrouped (``conv_backward_flop``): the step's note then says so."""
    return any(t.module == "conv1d" and t.groups > 1 for t in inv.tensors)


def label(key: str, lang: str = "en", **params: Any) -> str:
    return pick(LABELS[key], lang, **params)


def _int(n: int) -> str:
    return f"{n:,}"


def rows(c: costs.Costs, lang: str) -> list[tuple[str, str, str]]:
    """(label, exact integer, readable) rows: FLOPs forward/backward/total, then memory by component and total."""
    flops = [("forward", c.forward), ("backward", c.backward), ("total", c.forward + c.backward)]
    memory = [("weights", c.weights), ("gradients", c.gradients), ("optimizer", c.optimizer),
              ("activations", c.activations), ("total", c.memory_total)]
    out = [(f"{label('flops', lang)} · {label(k, lang)}", _int(v), "") for k, v in flops]
    out += [(f"{label('memory', lang)} · {label(k, lang)}", _int(v), fmt_binary_bytes(v)) for k, v in memory]
    return out


def grouped_rows(c: costs.Costs, lang: str) -> list[tuple[str, list[tuple[str, str, int, str]]]]:
    """The same figures as :func:`rows` under their two group names, each row's own label short
    ("forward", "weights"): (group label, [(key, row label, exact integer, readable)]). The page's
    table, whose first column then stays narrow enough for a phone."""
    flops = [("forward", c.forward), ("backward", c.backward), ("total", c.forward + c.backward)]
    memory = [("weights", c.weights), ("gradients", c.gradients), ("optimizer", c.optimizer),
              ("activations", c.activations), ("total", c.memory_total)]
    return [
        (label("flops", lang), [(k, label(k, lang), v, "") for k, v in flops]),
        (label("memory", lang), [(k, label("activations_short" if k == "activations" else k, lang), v,
                                  fmt_binary_bytes(v)) for k, v in memory]),
    ]


def heading(c: costs.Costs, lang: str) -> str:
    s = c.settings
    return label("settings", lang, batch=s.batch, seq_len=s.seq_len, dtype=s.dtype,
                 optimizer=optimizer_name(s.optimizer, lang), ckpt=label("on" if s.checkpointing else "off", lang))


def note(lang: str, grouped: bool = False) -> str:
    """What the figures are and leave out; with ``grouped``, how FlopCounterMode counts grouped convolutions."""
    if not grouped:
        return label("note", lang)
    return label("note", lang) + punct("sentence_gap", lang) + label("grouped_note", lang)


def render(c: costs.Costs, lang: str = "en", markdown: bool = False, grouped: bool = False) -> str:
    """Text (aligned columns) or a Markdown table, with the settings and what the sum leaves out.

    ``grouped``: the model has grouped convolutions (:func:`grouped_convolutions`), which the note explains.
    """
    title = f"{label('title', lang)}{colon(lang)}{heading(c, lang)}"
    table = rows(c, lang)
    if markdown:
        head = (label("item", lang), label("value", lang), label("size", lang))
        return f"**{title}**\n\n" + _table(head, "lrr", table) + "\n" + note(lang, grouped) + "\n"
    width = max(display_width(name) for name, _, _ in table) + 2
    digits = max(len(value) for _, value, _ in table)
    lines = [title]
    lines += [f"{name}{' ' * (width - display_width(name))}{value:>{digits}}  {readable}".rstrip() for name, value, readable in table]
    lines.append(note(lang, grouped))
    return "\n".join(lines) + "\n"


def error(exc: CalcError, lang: str) -> str:
    return f"error: {exc.code}: {exc.message(lang)}"


# ------------------------------------------------------------------ the page

#: The page's query keys for the step (kept in the share link) → ``costs.settings`` arguments.
PAGE_KEYS: tuple[str, ...] = ("batch", "seq_len", "dtype", "optimizer", "ckpt")
#: Which form field an error of the step belongs beside.
ERROR_FIELDS: dict[str, str] = {
    "costs_seq_too_long": "seq_len", "costs_optimizer": "optimizer", "costs_dtype": "dtype",
    "costs_no_checkpointing": "ckpt",
}
#: Sequence lengths the chart plots FLOPs and activation memory at (the L² of eager attention shows).
SERIES_LENGTHS: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)


def page_settings(params: Any) -> costs.Settings:
    """The step's settings from the page's query (strings); B and L default to 32 and 128."""
    def get(key: str, default: str) -> Any:
        value = params.get(key)
        return default if value is None else value

    ckpt = str(get("ckpt", "")).lower() in ("1", "true", "on", "yes")
    return costs.settings(get("batch", "32"), get("seq_len", "128"), get("dtype", "fp32"), get("optimizer", "adamw"),
                          ckpt)


def error_field(exc: CalcError) -> str | None:
    """The field a step error is shown beside (B or L for their own errors), or None."""
    if exc.code in ("costs_not_positive", "too_large") and exc.params.get("key") in ("batch", "seq_len"):
        return str(exc.params["key"])
    return ERROR_FIELDS.get(exc.code)


def series(inv: Any, s: costs.Settings, plan: Any) -> list[dict[str, int]]:
    """FLOPs (forward + backward) and activation bytes against L, same B, dtype, optimizer, plan."""
    model = costs.cost_model(inv)
    longest = model.max_seq_len(inv.config) if model.max_seq_len is not None else None
    lengths = sorted({n for n in SERIES_LENGTHS if longest is None or n <= longest} | {s.seq_len})
    out = []
    for n in lengths:
        c = costs.compute(inv, costs.Settings(s.batch, n, s.dtype, s.optimizer, s.checkpointing), plan)
        out.append({"seq_len": n, "flops": c.forward + c.backward, "activations": c.activations})
    return out


def page_answer(inv: Any, plan: Any, params: Any, lang: str) -> dict[str, Any]:
    """The panel's data: the figures, their Markdown and text, the chart's series, the query keys for the link.

    Raises :class:`CalcError` (the caller places it beside :func:`error_field`).
    """
    s = page_settings(params)
    c = costs.compute(inv, s, plan)
    grouped = grouped_convolutions(inv)
    query = {"batch": str(s.batch), "seq_len": str(s.seq_len)}
    if s.dtype != "fp32":
        query["dtype"] = s.dtype
    if s.optimizer != "adamw":
        query["optimizer"] = s.optimizer
    if s.checkpointing:
        query["ckpt"] = "1"
    return {
        "costs": c.to_dict(), "total_bytes": c.memory_total, "markdown": render(c, lang, True, grouped),
        "text": render(c, lang, grouped=grouped), "series": series(inv, s, plan), "query": query,
        "grouped_convolutions": grouped,
    }
