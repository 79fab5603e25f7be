"""The training-step costs as text and Markdown in both languages, and the page panel's answer.

The CLI computes the step (:mod:`calculator.costs`) and appends :func:`render`
(text/Markdown) or puts :meth:`Costs.to_dict` under ``"costs"`` (JSON); the
worker protocol calls :func:`page_answer`.
"""
from __future__ import annotations

from typing import Any

from .. import costs, options
from ..errors import CalcError
from ..i18n import L, colon, pick
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
    "activations": L("activations (saved for backward)", "激活值（为反向保存）"),
    "item": L("Item", "项目"),
    "value": L("Value", "数值"),
    "bytes": L("bytes", "字节"),
    "note": {
        "en": "Exact for this step as PyTorch runs it on CPU (FlopCounterMode: 2 FLOPs per multiply-add, "
        "matmuls only). The sum leaves out the framework's workspace, the allocator's rounding and the CUDA context.",
        "zh": "这是 PyTorch 在 CPU 上运行这一步的精确值（FlopCounterMode：一次乘加记 2 次浮点运算，只计矩阵乘法）。"
        "合计不含框架的工作区、分配器的取整和 CUDA 上下文。",
    },
}
OPTIMIZER_NAMES = {"adamw": "AdamW", "sgd": "SGD", "sgd-momentum": "SGD (momentum)", "adafactor": "Adafactor"}


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


def heading(c: costs.Costs, lang: str) -> str:
    s = c.settings
    return label("settings", lang, batch=s.batch, seq_len=s.seq_len, dtype=s.dtype,
                 optimizer=OPTIMIZER_NAMES[s.optimizer], ckpt=label("on" if s.checkpointing else "off", lang))


def render(c: costs.Costs, lang: str = "en", markdown: bool = False) -> str:
    """Text (aligned columns) or a Markdown table, with the settings and what the sum leaves out."""
    title = f"{label('title', lang)}{colon(lang)}{heading(c, lang)}"
    table = rows(c, lang)
    if markdown:
        head = (label("item", lang), label("value", lang), "")
        return f"**{title}**\n\n" + _table(head, "lrr", table) + "\n" + label("note", lang) + "\n"
    width = max(display_width(name) for name, _, _ in table) + 2
    digits = max(len(value) for _, value, _ in table)
    lines = [title]
    lines += [f"{name}{' ' * (width - display_width(name))}{value:>{digits}}  {readable}".rstrip() for name, value, readable in table]
    lines.append(label("note", lang))
    return "\n".join(lines) + "\n"


def error(exc: CalcError, lang: str) -> str:
    return f"error: {exc.code}: {exc.message(lang)}"


# ------------------------------------------------------------------ the page

#: The page's query keys for the step (kept in the share link), as :mod:`calculator.options` declares them.
PAGE_KEYS: tuple[str, ...] = options.keys("step")
#: Sequence lengths the chart plots FLOPs and activation memory at (the L² of eager attention shows).
SERIES_LENGTHS: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)


def page_settings(params: Any) -> costs.Settings:
    """The step's settings from the page's query (strings); unset, each takes its option's default (B 32, L 128)."""
    defaults = options.defaults("step")

    def get(key: str) -> Any:
        value = params.get(key)
        return defaults[key] if value is None else value

    ckpt = str(get("ckpt")).lower() in ("1", "true", "on", "yes")
    return costs.settings(get("batch"), get("seq_len"), get("dtype"), get("optimizer"), ckpt)


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

    Raises :class:`CalcError` (the caller places it: :func:`calculator.page.fields.error_dict`).
    """
    s = page_settings(params)
    c = costs.compute(inv, s, plan)
    query = {"batch": str(s.batch), "seq_len": str(s.seq_len)}
    if s.dtype != options.DTYPE.default:
        query["dtype"] = s.dtype
    if s.optimizer != options.OPTIMIZER.default:
        query["optimizer"] = s.optimizer
    if s.checkpointing:
        query["ckpt"] = "1"
    return {
        "costs": c.to_dict(), "total_bytes": c.memory_total, "markdown": render(c, lang, markdown=True),
        "text": render(c, lang), "series": series(inv, s, plan), "query": query,
    }
