"""The training-step costs as text and Markdown in both languages, and the page panel's answer.

The CLI computes the step (:mod:`calculator.costs`) and appends :func:`render`
(text/Markdown) or puts :meth:`Costs.to_dict` under ``"costs"`` (JSON); the
worker protocol calls :func:`page_answer`.
"""
from __future__ import annotations

from typing import Any

from .. import costs
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

    text = str(get("ckpt", "")).strip().lower()
    if text not in ("", "0", "false", "off", "no", "1", "true", "on", "yes"):
        raise CalcError("not_boolean", key="ckpt", value=get("ckpt", ""))  # beside the checkbox, not read as off
    ckpt = text in ("1", "true", "on", "yes")
    return costs.settings(get("batch", "32"), get("seq_len", "128"), get("dtype", "fp32"), get("optimizer", "adamw"),
                          ckpt)


def error_field(exc: CalcError) -> str | None:
    """The field a step error is shown beside (B or L for their own errors), or None."""
    if exc.code in ("costs_not_positive", "too_large") and exc.params.get("key") in ("batch", "seq_len"):
        return str(exc.params["key"])
    if exc.code == "not_boolean" and exc.params.get("key") == "ckpt":
        return "ckpt"
    return ERROR_FIELDS.get(exc.code)


#: Most layer passes the chart may cost in all (each point is a whole simulated step: a layer is one pass, two
#: with gradient checkpointing, which replays it). A 12-layer model gets every point; 512 layers get 4 (2 with
#: checkpointing), so every input within the bounds answers well inside the page's 20 s watchdog
#: (benchmarks/engine_speed.py prints the figures).
MAX_SERIES_PASSES = 2048


def series_lengths(inv: Any, s: costs.Settings) -> list[int]:
    """The lengths the chart is drawn at: :data:`SERIES_LENGTHS` the position table takes, and L itself; for
    deep models fewer, spread over that range, so that points × passes per point ≤ :data:`MAX_SERIES_PASSES`
    (at least L and one other)."""
    model = costs.cost_model(inv)
    longest = model.max_seq_len(inv.config) if model.max_seq_len is not None else None
    lengths = sorted({n for n in SERIES_LENGTHS if longest is None or n <= longest} | {s.seq_len})
    passes = max(inv.num_layers, 1) * (2 if s.checkpointing else 1)
    points = max(2, MAX_SERIES_PASSES // passes)
    if len(lengths) <= points:
        return lengths
    others = [n for n in lengths if n != s.seq_len]
    if points == 2:
        picked = [others[-1] if others[-1] > s.seq_len else others[0]]
    else:
        picked = [others[round(i * (len(others) - 1) / (points - 2))] for i in range(points - 1)]
    return sorted(set(picked) | {s.seq_len})


def series(inv: Any, s: costs.Settings, plan: Any, first: costs.Costs | None = None) -> list[dict[str, int]]:
    """FLOPs (forward + backward) and activation bytes against L, same B, dtype, optimizer, plan.

    ``first`` is the step at L itself, already worked out (not run again). A length whose figures pass
    2^53 (``costs_too_large``) is left out of the chart: the panel's own L was within it.
    """
    out = []
    for n in series_lengths(inv, s):
        try:
            c = first if first is not None and n == s.seq_len else costs.compute(
                inv, costs.Settings(s.batch, n, s.dtype, s.optimizer, s.checkpointing), plan)
        except CalcError as exc:
            if exc.code != "costs_too_large":
                raise
            continue
        out.append({"seq_len": n, "flops": c.forward + c.backward, "activations": c.activations})
    return out


def page_answer(inv: Any, plan: Any, params: Any, lang: str) -> dict[str, Any]:
    """The panel's data: the figures, their Markdown and text, the chart's series, the query keys for the link.

    Raises :class:`CalcError` (the caller places it beside :func:`error_field`).
    """
    s = page_settings(params)
    c = costs.compute(inv, s, plan)
    query = {"batch": str(s.batch), "seq_len": str(s.seq_len)}
    if s.dtype != "fp32":
        query["dtype"] = s.dtype
    if s.optimizer != "adamw":
        query["optimizer"] = s.optimizer
    if s.checkpointing:
        query["ckpt"] = "1"
    return {
        "costs": c.to_dict(), "total_bytes": c.memory_total, "markdown": render(c, lang, markdown=True),
        "text": render(c, lang), "series": series(inv, s, plan, c), "query": query,
    }
