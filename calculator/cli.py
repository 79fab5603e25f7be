"""``python -m calculator``: the engine from a shell, for forum answers and scripts.

argparse, then one call per format to :mod:`calculator.views`. Bad input never shows a
traceback: exit status 2 and one line on stderr, ``error: <code>: <message>``; with
``--format json``, a JSON object on stdout instead, ``{"error": {"code", "message"}}``.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from . import costs, counts, peft, views
from .build import build
from .config import parse_json
from .errors import CalcError
from .i18n import label
from .presets import PRESETS, get_preset


class UsageError(Exception):
    """A bad option (argparse's message), reported like every other error (:func:`_fail`)."""


class _Parser(argparse.ArgumentParser):
    """argparse's errors become :class:`UsageError`, so they follow our format, JSON included."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def make_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m calculator",
        description="Exact parameter counts for BERT-family models, tensor by tensor.",
    )
    source = p.add_mutually_exclusive_group()
    source.add_argument("--preset", metavar="NAME", help="a published checkpoint: " + ", ".join(PRESETS))
    source.add_argument("--config", metavar="PATH", help="a Hugging Face config.json ('-' reads stdin)")
    p.add_argument("--architecture", metavar="CLASS", help="model class, e.g. BertForMaskedLM (overrides architectures[0])")
    p.add_argument("--no-pooler", action="store_true", help="base model without the pooler (add_pooling_layer=False)")
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                   help="markdown: a summary to paste into an answer (--table for the per-tensor table)")
    p.add_argument("--table", action="store_true", help="markdown: the per-tensor table instead of the summary")
    p.add_argument("--full", action="store_true",
                   help="text/markdown: every tensor of every layer instead of layer 0 × L (markdown: implies --table)")
    p.add_argument("--label", metavar="TEXT", help="markdown: the name the summary gives the model (default: the preset)")
    p.add_argument("--lang", choices=("en", "zh"), default="en")
    p.add_argument("--list-presets", action="store_true", help="print the preset names and exit")
    p.add_argument("--counts", action="store_true",
                   help="text/markdown: every tool's count side by side (torchinfo, state_dict, save_pretrained, ...)")
    lora = p.add_argument_group("LoRA, as peft's get_peft_model(model, LoraConfig(...)) applies it")
    lora.add_argument("--lora-r", metavar="R", help=f"rank r (default {peft.DEFAULT_R}, LoraConfig's)")
    lora.add_argument("--lora-targets", metavar="A,B",
                      help="target_modules: module names (query,value), or all-linear; default: peft's for the model_type")
    lora.add_argument("--lora-bias", metavar="MODE", help="none (default), all or lora_only")
    lora.add_argument("--peft-task-type", metavar="TYPE", help="SEQ_CLS, TOKEN_CLS or QUESTION_ANS (adds the head to modules_to_save)")
    lora.add_argument("--modules-to-save", metavar="A,B", help="modules trained in full, as a copy")
    frozen = p.add_argument_group("freezing (instead of LoRA)")
    frozen.add_argument("--freeze-embeddings", action="store_true", help="requires_grad_(False) on the embeddings")
    frozen.add_argument("--freeze-layers", metavar="K", help="... on the first K encoder layers")
    frozen.add_argument("--freeze-all-but-head", action="store_true", help="... on everything but the task head")
    g = p.add_argument_group("training step (FLOPs and memory, exact)")
    # No choices=: a bad value is a coded error in both languages, as everywhere else.
    g.add_argument("--batch", metavar="B", help="batch size: adds the cost of one training step")
    g.add_argument("--seq-len", metavar="L", help="sequence length (tokens per sequence)")
    g.add_argument("--dtype", metavar="fp32|bf16", help="the model's dtype (model.to(dtype), no autocast); default fp32")
    g.add_argument("--optimizer", metavar="NAME", help="adamw (default), sgd, sgd-momentum or adafactor")
    g.add_argument("--grad-checkpointing", action="store_true", help="gradient checkpointing (use_reentrant=True)")
    return p


LORA_OPTIONS = ("lora_r", "lora_targets", "lora_bias", "peft_task_type", "modules_to_save")
FREEZE_OPTIONS = ("freeze_embeddings", "freeze_layers", "freeze_all_but_head")


def make_plan(args: argparse.Namespace, inv: Any) -> peft.Plan | None:
    """The LoRA or freezing plan the options ask for, or None."""
    if any(getattr(args, k) is not None for k in LORA_OPTIONS):
        return peft.lora_from_text(inv, args.lora_r, args.lora_targets, args.lora_bias, args.peft_task_type,
                                   args.modules_to_save)
    if args.freeze_embeddings or args.freeze_layers is not None or args.freeze_all_but_head:
        return peft.freeze(inv, args.freeze_embeddings, args.freeze_layers or 0, args.freeze_all_but_head)
    return None


class FileError(Exception):
    """The config file cannot be read (code ``file``)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(path, reason)
        self.path, self.reason = path, reason

    def message(self, lang: str) -> str:
        return label("file_unreadable", lang, path=self.path, reason=self.reason)


def load_config(args: argparse.Namespace) -> dict[str, Any]:
    if args.config:
        if args.config == "-":
            data = sys.stdin.buffer.read()
        else:
            try:
                with open(args.config, "rb") as fh:
                    data = fh.read()
            except OSError as exc:
                raise FileError(args.config, exc.strerror or str(exc)) from None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise CalcError("invalid_json", detail="the file is not UTF-8 text") from None
        return parse_json(text)
    return dict(get_preset(args.preset or "bert-base-uncased").config)


def _fail(code: str, message: str, as_json: bool = False) -> int:
    """Report an error: one line on stderr, or (``--format json``) a JSON object on stdout. Exit status 2."""
    if as_json:
        print(json.dumps({"error": {"code": code, "message": message}}, ensure_ascii=False))
    else:
        print(f"error: {code}: {message}", file=sys.stderr)
    return 2


def _option(argv: Sequence[str], name: str) -> str | None:
    """An option's value read before argparse (so even its errors know the format and language)."""
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


STEP_OPTIONS = ("batch", "seq_len", "dtype", "optimizer", "grad_checkpointing")


def training_step(args: argparse.Namespace, inv: Any, plan: Any) -> costs.Costs | None:
    """The step's costs when any of its options is given (B and L are then required), else None."""
    if not any(getattr(args, k) not in (None, False) for k in STEP_OPTIONS):
        return None
    s = costs.settings(
        "" if args.batch is None else args.batch, "" if args.seq_len is None else args.seq_len,
        args.dtype, args.optimizer, args.grad_checkpointing,
    )
    return costs.compute(inv, s, plan)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = _option(argv, "--format") == "json"
    try:
        args = make_parser().parse_args(argv)
    except UsageError as exc:
        return _fail("usage", str(exc), as_json)
    if args.list_presets:
        print("\n".join(PRESETS))
        return 0
    lora_given = any(getattr(args, k) is not None for k in LORA_OPTIONS)
    if lora_given and (args.freeze_embeddings or args.freeze_layers is not None or args.freeze_all_but_head):
        return _fail("plan_conflict", CalcError("plan_conflict").message(args.lang), as_json)
    try:
        raw = load_config(args)
        inv = build(raw, args.architecture, False if args.no_pooler else None)
        plan = make_plan(args, inv)
        step = training_step(args, inv, plan)
    except CalcError as exc:
        return _fail(exc.code, exc.message(args.lang), as_json)
    except FileError as exc:
        return _fail("file", exc.message(args.lang), as_json)
    told = views.config_notes(raw, args.lang)
    if args.format == "json":
        data = views.to_json(inv, plan if plan is not None and plan.method == "lora" else None)
        data["counts"] = counts.counts_json(inv)
        if plan is not None and plan.method == "freeze":
            data["freeze"] = plan.to_dict(args.lang)
        elif plan is not None:
            data["peft"]["warnings"] = [w.to_dict(args.lang) for w in plan.warnings]
        if step is not None:
            data["costs"] = step.to_dict()
        if told:
            data["notes"] = told
        out = json.dumps(data, ensure_ascii=False, indent=2)
    else:
        markdown = args.format == "markdown"
        summary = markdown and not (args.table or args.full)
        if summary:
            out = views.summary_markdown(inv, args.lang, name=args.label or args.preset, plan=plan)
        elif markdown:
            out = views.markdown_table(inv, args.lang, compact=not args.full)
        else:
            out = views.text_report(inv, args.lang, compact=not args.full)
        if args.counts:
            out += "\n" + views.counts_report(inv, args.lang, markdown)
        if plan is not None and not summary:
            out += "\n" + views.plan_report(plan, args.lang, markdown, args.full)
        if step is not None:
            out += "\n" + views.costs.render(step, args.lang, markdown)
        if told:
            out = "".join(("> " if markdown else "") + n["message"] + "\n\n" for n in told) + out
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0
