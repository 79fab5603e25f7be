"""The training-step costs as the CLI prints them: options, text and Markdown in both languages, JSON.

Kept apart from the views package so the CLI needs only a few lines: it adds
:func:`add_arguments` to its parser, calls :func:`from_args` where it builds the
plan, and appends :func:`render` (text/Markdown) or puts :meth:`Costs.to_dict`
under ``"costs"`` (JSON).
"""
from __future__ import annotations

import argparse
from typing import Any

from . import costs
from .errors import CalcError

LABELS: dict[str, dict[str, str]] = {
    "title": {"en": "Training step", "zh": "训练一步"},
    "settings": {
        "en": "B = {batch}, L = {seq_len}, {dtype}, {optimizer}, gradient checkpointing {ckpt}",
        "zh": "B = {batch}，L = {seq_len}，{dtype}，{optimizer}，梯度检查点{ckpt}",
    },
    "on": {"en": "on", "zh": "开启"},
    "off": {"en": "off", "zh": "关闭"},
    "flops": {"en": "FLOPs", "zh": "浮点运算量（FLOPs）"},
    "forward": {"en": "forward", "zh": "前向"},
    "backward": {"en": "backward", "zh": "反向"},
    "total": {"en": "total", "zh": "合计"},
    "memory": {"en": "Memory", "zh": "显存/内存"},
    "weights": {"en": "weights", "zh": "权重"},
    "gradients": {"en": "gradients", "zh": "梯度"},
    "optimizer": {"en": "optimizer state", "zh": "优化器状态"},
    "activations": {"en": "activations (saved for backward)", "zh": "激活值（为反向保存）"},
    "item": {"en": "Item", "zh": "项目"},
    "value": {"en": "Value", "zh": "数值"},
    "bytes": {"en": "bytes", "zh": "字节"},
    "note": {
        "en": "Exact for this step as PyTorch runs it on CPU (FlopCounterMode: 2 FLOPs per multiply-add, "
        "matmuls only). The sum leaves out the framework's workspace, the allocator's rounding and the CUDA context.",
        "zh": "这是 PyTorch 在 CPU 上运行这一步的精确值（FlopCounterMode：一次乘加记 2 次浮点运算，只计矩阵乘法）。"
        "合计不含框架的工作区、分配器的取整和 CUDA 上下文。",
    },
}
OPTIMIZER_NAMES = {"adamw": "AdamW", "sgd": "SGD", "sgd-momentum": "SGD (momentum)", "adafactor": "Adafactor"}


def label(key: str, lang: str = "en", **params: Any) -> str:
    text = LABELS[key]["zh" if lang == "zh" else "en"]
    return text.format(**params) if params else text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--batch B --seq-len L [--dtype] [--optimizer] [--grad-checkpointing]``.

    No ``choices=``: a bad value is a coded error in both languages, as everywhere else.
    """
    g = parser.add_argument_group("training step (FLOPs and memory, exact)")
    g.add_argument("--batch", metavar="B", help="batch size: adds the cost of one training step")
    g.add_argument("--seq-len", metavar="L", help="sequence length (tokens per sequence)")
    g.add_argument("--dtype", metavar="fp32|bf16", help="the model's dtype (model.to(dtype), no autocast); default fp32")
    g.add_argument("--optimizer", metavar="NAME", help="adamw (default), sgd, sgd-momentum or adafactor")
    g.add_argument("--grad-checkpointing", action="store_true", help="gradient checkpointing (use_reentrant=True)")


def wanted(args: argparse.Namespace) -> bool:
    return any(getattr(args, k, None) not in (None, False) for k in ("batch", "seq_len", "dtype", "optimizer",
                                                                     "grad_checkpointing"))


def from_args(args: argparse.Namespace, inv: Any, plan: Any) -> costs.Costs | None:
    """The step's costs when any of its options is given (B and L are then required), else None."""
    if not wanted(args):
        return None
    s = costs.settings(
        "" if args.batch is None else args.batch, "" if args.seq_len is None else args.seq_len,
        args.dtype, args.optimizer, args.grad_checkpointing,
    )
    return costs.compute(inv, s, plan)


def _int(n: int) -> str:
    return f"{n:,}"


def _bytes(n: int) -> str:
    """Binary units, as ``nvidia-smi`` and PyTorch's memory summaries print them."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{n:,} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n:,} B"


def rows(c: costs.Costs, lang: str) -> list[tuple[str, str, str]]:
    """(label, exact integer, readable) rows: FLOPs forward/backward/total, then memory by component and total."""
    flops = [("forward", c.forward), ("backward", c.backward), ("total", c.forward + c.backward)]
    memory = [("weights", c.weights), ("gradients", c.gradients), ("optimizer", c.optimizer),
              ("activations", c.activations), ("total", c.memory_total)]
    out = [(f"{label('flops', lang)} · {label(k, lang)}", _int(v), "") for k, v in flops]
    out += [(f"{label('memory', lang)} · {label(k, lang)}", _int(v), _bytes(v)) for k, v in memory]
    return out


def heading(c: costs.Costs, lang: str) -> str:
    s = c.settings
    return label("settings", lang, batch=s.batch, seq_len=s.seq_len, dtype=s.dtype,
                 optimizer=OPTIMIZER_NAMES[s.optimizer], ckpt=label("on" if s.checkpointing else "off", lang))


def render(c: costs.Costs, lang: str = "en", markdown: bool = False) -> str:
    """Text (aligned columns) or a Markdown table, with the settings and what the sum leaves out."""
    colon = "：" if lang == "zh" else ": "
    title = f"{label('title', lang)}{colon}{heading(c, lang)}"
    table = rows(c, lang)
    if markdown:
        lines = [f"**{title}**", "", f"| {label('item', lang)} | {label('value', lang)} | |", "|---|---:|---:|"]
        lines += [f"| {name} | {value} | {readable} |" for name, value, readable in table]
        lines += ["", label("note", lang)]
        return "\n".join(lines) + "\n"
    width = max(_width(name) for name, _, _ in table) + 2
    digits = max(len(value) for _, value, _ in table)
    lines = [title]
    lines += [f"{name}{' ' * (width - _width(name))}{value:>{digits}}  {readable}".rstrip() for name, value, readable in table]
    lines.append(label("note", lang))
    return "\n".join(lines) + "\n"


def _width(text: str) -> int:
    """Columns a terminal gives the text (CJK characters take two)."""
    return sum(2 if "\u2e80" <= ch <= "\uffef" else 1 for ch in text)


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
    query = {"batch": str(s.batch), "seq_len": str(s.seq_len)}
    if s.dtype != "fp32":
        query["dtype"] = s.dtype
    if s.optimizer != "adamw":
        query["optimizer"] = s.optimizer
    if s.checkpointing:
        query["ckpt"] = "1"
    return {
        "costs": c.to_dict(), "total_bytes": c.memory_total, "markdown": render(c, lang, markdown=True),
        "text": render(c, lang), "series": series(inv, s, plan), "query": query,
    }
