"""``python -m calculator``: the engine from a shell, for forum answers and scripts.

argparse, then one call per format to :mod:`calculator.views`. Bad input never shows a
traceback: exit status 2 and one line on stderr, ``error: <code>: <message>``; with
``--format json``, a JSON object on stdout instead, ``{"error": {"code", "message"}}``.
"""
from __future__ import annotations

import argparse
import errno
import json
import re
import sys
from typing import Any, Sequence

from . import costs, counts, options, peft, views
from .build import build
from .config import parse_json
from .errors import CalcError
from .i18n import L, colon, join_list, label, norm_lang, pick, punct
from .presets import PRESETS, get_preset
from .views.numbers import display_width


class UsageError(Exception):
    """A bad option (argparse's message), reported like every other error (:func:`_fail`)."""


class _Parser(argparse.ArgumentParser):
    """argparse's errors become :class:`UsageError`, so they follow our format, JSON included."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


#: The CLI's own words: the usage line's prefix, headings, option help, and argparse's messages
#: (the planner's and the step's options are worded once, in :mod:`calculator.options`).
WORDS: dict[str, dict[str, str]] = {
    "usage": L("usage: ", "用法："),
    "description": L("Exact parameter counts for BERT-family models, tensor by tensor, and the FLOPs and memory of "
                     "one training step.",
                     "逐个张量精确计算 BERT 系列模型的参数量，以及训练一步的 FLOPs 和显存。"),
    "options": L("options", "选项"),
    "lora": L("LoRA, as peft's get_peft_model(model, LoraConfig(...)) applies it",
              "LoRA（与 peft 的 get_peft_model(model, LoraConfig(...)) 一致）"),
    "freezing": L("freezing (instead of LoRA)", "冻结参数（与 LoRA 二选一）"),
    "step": L("training step (FLOPs and memory, exact)", "训练一步的开销（FLOPs 和显存，精确值）"),
    "help": L("show this help and exit", "显示本帮助并退出"),
    "preset": L("a published checkpoint (--list-presets lists them)", "已发布的预训练模型（--list-presets 列出全部）"),
    "config": L("a Hugging Face config.json ('-' reads stdin)", "Hugging Face 的 config.json（“-”表示从标准输入读取）"),
    "architecture": L("model class, e.g. BertForMaskedLM (overrides architectures[0])",
                      "模型类，例如 BertForMaskedLM（覆盖 architectures[0]）"),
    "no_pooler": L("base model without the pooler (add_pooling_layer=False)", "不带池化层的基础模型（add_pooling_layer=False）"),
    "format": L("markdown: a summary to paste into an answer (--table for the per-tensor table)",
                "markdown：可直接贴进回答的摘要（加 --table 输出逐张量的表格）"),
    "table": L("markdown: the per-tensor table instead of the summary", "markdown：输出逐张量的表格而不是摘要"),
    "full": L("text/markdown: every tensor of every layer instead of layer 0 × L (markdown: implies --table)",
              "text/markdown：列出每一层的每个张量，而不是第 0 层 × L（markdown 下隐含 --table）"),
    "label": L("markdown: the name the summary gives the model (default: the preset)",
               "markdown：摘要里模型的名称（默认为预设名）"),
    "lang": L("language of the output and of error messages", "输出和错误信息的语言"),
    "list_presets": L("print the preset names and exit", "列出全部预设名并退出"),
    "counts": L("text/markdown: every tool's count side by side (torchinfo, state_dict, save_pretrained, ...)",
                "text/markdown：并列给出各个工具打印的数字（torchinfo、state_dict、save_pretrained 等）"),
    # A step option without --batch or --seq-len: say which is missing, not that a value is empty.
    "step_needs": L("The cost of a training step needs both --batch and --seq-len (missing: {missing}).",
                    "计算训练一步的开销需要同时给出 --batch 和 --seq-len（缺少 {missing}）。"),
    "and": L(" and ", " 和 "),
    # A value the reader typed, quoted as each language quotes: 'yaml' / “yaml”.
    "quoted": L("'{value}'", "“{value}”"),
    # Why a config file cannot be read, in the output's language (the system's own words are English).
    "file_missing": L("no such file", "文件不存在"),
    "file_denied": L("permission denied", "没有读取权限"),
    "file_is_dir": L("it is a directory", "这是一个目录，不是文件"),
    # What to do after a bad option.
    "see_help": L("See python -m calculator --help for the options.", "全部选项见 python -m calculator --help。"),
}

#: argparse's error messages (its English templates, the same in Python 3.10 to 3.13), each as a regular
#: expression over its message and the sentence in both languages; anything else keeps argparse's words.
ARGPARSE_MESSAGES: tuple[tuple[str, dict[str, str]], ...] = (
    (r"unrecognized arguments: (?P<args>.+)", L("unrecognized arguments: {args}.", "无法识别的参数：{args}。")),
    (r"argument (?P<opt>\S+): invalid choice: (?P<value>.+?) \(choose from (?P<choices>.+)\)",
     L("{opt}: invalid choice {value} (choose from {choices}).", "{opt} 的取值{value}无效（可选：{choices}）。")),
    (r"argument (?P<opt>\S+): expected one argument", L("{opt} needs a value.", "{opt} 后面需要一个值。")),
    (r"argument (?P<opt>\S+): not allowed with argument (?P<other>\S+)",
     L("{opt} cannot be used together with {other}.", "{opt} 不能与 {other} 同时使用。")),
    (r"argument (?P<opt>\S+): ignored explicit argument (?P<value>.+)",
     L("{opt} takes no value (got {value}).", "{opt} 不接受取值（当前为 {value}）。")),
    (r"ambiguous option: (?P<opt>\S+) could match (?P<choices>.+)",
     L("{opt} is ambiguous: it could be {choices}.", "选项 {opt} 有歧义，可能是：{choices}。")),
)


def usage_message(message: str, lang: str) -> str:
    """argparse's error ``message`` in ``lang``, followed by where the options are listed."""
    for pattern, entry in ARGPARSE_MESSAGES:
        m = re.fullmatch(pattern, message)
        if m:
            found = m.groupdict()
            if "choices" in found and found["choices"].startswith("--"):  # options: listed as the language lists names
                found["choices"] = join_list(found["choices"].split(", "), lang)
            elif "choices" in found:  # 'text', 'markdown', 'json' → text, markdown, json / text、markdown、json
                found["choices"] = join_list([c.strip("'\"") for c in found["choices"].split(", ")], lang)
                found["value"] = pick(WORDS["quoted"], lang, value=found["value"].strip("'\""))
            text = pick(entry, lang, **found)
            break
    else:
        text = message.rstrip(".") + "."
    return text + punct("sentence_gap", lang) + pick(WORDS["see_help"], lang)


class _Formatter(argparse.HelpFormatter):
    """argparse's help with the usage line's prefix, and the headings' colon, in the parser's language."""

    prefix = WORDS["usage"]["en"]
    colon = ":"

    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, self.prefix if prefix is None else prefix)

    # argparse wraps by len(): a Chinese character is one column to it but two in a terminal, so its
    # Chinese lines ran past the width and broke identifiers ("save_" / "pretrained"). Wrapped here by
    # display width, between Chinese characters or at spaces, never inside a Latin word or before a
    # closing mark.
    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap_display(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in wrap_display(text, width - len(indent)))

    def format_help(self) -> str:
        text = super().format_help()
        if self.colon == ":":
            return text
        # argparse ends each heading with ":"; Chinese ends it with a full-width colon ("选项：").
        return re.sub(r"(?m)^(\S[^\n]*):$", lambda m: m.group(1) + self.colon, text)


#: Marks a line may not start with (Chinese typesetting's 避头 rule).
_NO_LINE_START = "，。、；：）」』”’！？……）"
#: ...nor end with (避尾).
_NO_LINE_END = "（「『“‘"
_TOKENS = re.compile(r"[\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]|[^\s\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]+|\s+")


def wrap_display(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` terminal columns (CJK characters take two); a Latin word or
    an identifier is never split (a longer one gets a line of its own)."""
    lines: list[str] = []
    line, used, gap = "", 0, False
    for tok in _TOKENS.findall(" ".join(text.split())):
        if tok.isspace():
            gap = bool(line)
            continue
        w = display_width(tok) + (1 if gap else 0)
        if line and used + w > width and tok[0] not in _NO_LINE_START:
            carry = ""
            while line and line[-1] in _NO_LINE_END:  # an opening mark goes down with what it opens
                carry, line = line[-1] + carry, line[:-1]
            if line:
                lines.append(line.rstrip())
            line = carry + tok
            used = display_width(line)
        else:
            line += (" " if gap else "") + tok
            used += w
        gap = False
    if line:
        lines.append(line)
    return lines


def make_parser(lang: str = "en") -> argparse.ArgumentParser:
    """The options; their help, headings and usage line in ``lang`` (``--lang`` read before parsing)."""
    w = lambda key, **params: pick(WORDS[key], lang, **params)  # noqa: E731
    formatter: Any = type("Formatter", (_Formatter,), {"prefix": w("usage"), "colon": colon(lang).strip()})
    p = _Parser(prog="python -m calculator", description=w("description"), formatter_class=formatter, add_help=False)
    o = p.add_argument_group(w("options"))
    o.add_argument("-h", "--help", action="help", help=w("help"))
    source = o.add_mutually_exclusive_group()
    source.add_argument("--preset", metavar="NAME", help=w("preset"))
    source.add_argument("--config", metavar="PATH", help=w("config"))
    add_option(source, options.MODEL, lang)  # issue 33 (hub): declared in calculator.options
    add_option(o, options.ENDPOINT, lang)
    o.add_argument("--architecture", metavar="CLASS", help=w("architecture"))
    o.add_argument("--no-pooler", action="store_true", help=w("no_pooler"))
    o.add_argument("--format", choices=("text", "markdown", "json"), default="text", help=w("format"))
    o.add_argument("--table", action="store_true", help=w("table"))
    o.add_argument("--full", action="store_true", help=w("full"))
    o.add_argument("--label", metavar="TEXT", help=w("label"))
    o.add_argument("--lang", choices=("en", "zh"), default="en", help=w("lang"))
    o.add_argument("--list-presets", action="store_true", help=w("list_presets"))
    o.add_argument("--counts", action="store_true", help=w("counts"))
    # The planner's and the step's options, from their one declaration (calculator.options).
    # No choices=: a bad value is a coded error in both languages, as everywhere else.
    # The step's heading holds the card's size too (--gpu-gb: the sum against it).
    headings = {("lora",): w("lora"), ("freeze",): w("freezing"), ("step", "card", "fit", "inference"): w("step")}
    for groups, heading in headings.items():
        g = p.add_argument_group(heading)
        for opt in options.OPTIONS:
            if opt.group in groups:
                add_option(g, opt, lang)
    return p


def add_option(group: Any, opt: options.Option, lang: str) -> None:
    """``opt`` as argparse options of ``group``: its flag (``dest`` its key), and a flag per menu value that has one."""
    if opt.cli is not None:
        text = pick(opt.help or opt.label, lang, r=peft.DEFAULT_R)  # --lora-r's help quotes peft's default rank
        if opt.kind == "flag":
            group.add_argument(opt.cli, dest=opt.key, action="store_true", help=text)
        elif opt.cli_const is not None:  # the flag alone means cli_const (--grad-checkpointing: non-reentrant)
            group.add_argument(opt.cli, dest=opt.key, metavar=opt.metavar, nargs="?", const=opt.cli_const, help=text)
        else:
            group.add_argument(opt.cli, dest=opt.key, metavar=opt.metavar, help=text)
    for choice in opt.choices:
        if choice.cli is not None:
            group.add_argument(choice.cli, action="store_true", help=pick(choice.help or opt.label, lang))


LORA_OPTIONS = options.LORA_KEYS


def _freezing(args: argparse.Namespace) -> bool:
    """Whether any freezing option was given (its menu's flags, or K)."""
    flags = [c.dest for c in options.FREEZE.choices if c.cli is not None]
    return any(getattr(args, d) for d in flags) or args.freeze_layers is not None


def make_plan(args: argparse.Namespace, inv: Any) -> peft.Plan | None:
    """The LoRA or freezing plan the options ask for, or None."""
    if any(getattr(args, k) is not None for k in LORA_OPTIONS):
        return peft.lora_from_text(inv, args.lora_r, args.lora_targets, args.lora_bias, args.peft_task_type,
                                   args.modules_to_save)
    if _freezing(args):
        return peft.freeze(inv, args.freeze_embeddings, args.freeze_layers or 0, args.freeze_all_but_head)
    return None


class FileError(Exception):
    """The config file cannot be read (code ``file``)."""

    #: errno → the reason in the output's language (others keep the system's words).
    REASONS = {errno.ENOENT: "file_missing", errno.EACCES: "file_denied", errno.EISDIR: "file_is_dir"}

    def __init__(self, path: str, reason: str, code: int | None = None) -> None:
        super().__init__(path, reason)
        self.path, self.reason, self.code = path, reason, code

    def message(self, lang: str) -> str:
        key = self.REASONS.get(self.code) if self.code is not None else None
        reason = pick(WORDS[key], lang) if key else self.reason
        return label("file_unreadable", lang, path=self.path, reason=reason)


def load_config(args: argparse.Namespace) -> dict[str, Any]:
    if args.config:
        if args.config == "-":
            data = sys.stdin.buffer.read()
        else:
            try:
                with open(args.config, "rb") as fh:
                    data = fh.read()
            except OSError as exc:
                raise FileError(args.config, exc.strerror or str(exc), exc.errno) from None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise CalcError("invalid_json", detail="the file is not UTF-8 text") from None
        return parse_json(text)
    return dict(get_preset(args.preset or "bert-base-uncased").config)


def from_hub(args: argparse.Namespace) -> tuple[Any, Any, dict[str, Any]]:
    """``--model``: read the repo (``--endpoint``/``HF_ENDPOINT``, ``HF_TOKEN``), build the base model (or
    ``--architecture``) from its config.json, and compare the checkpoint file with it."""
    from . import hub, hub_fetch

    ref = hub.parse_model_id(args.model)
    endpoint = hub_fetch.endpoint_from(args.endpoint)
    checkpoint = hub.run(hub.lookup(ref, endpoint), hub_fetch.transport(endpoint, hub_fetch.token_from()))
    inv, theirs = hub.build_models(checkpoint.config, args.architecture, False if args.no_pooler else None)
    comparison = hub.compare(inv, checkpoint, theirs)
    data = hub.to_json(checkpoint, inv, comparison, hub.checkpoint_architecture(checkpoint.config), args.lang)
    return checkpoint, inv, data


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


#: The options that ask for a training step (the card's size only means something against one), or for the
#: inference span (``--inference``, which also needs B and L).
STEP_OPTIONS = options.keys("step", "card", "fit", "inference")
#: What ``--inference`` refuses beside it: the options of training alone (their CLI flags, for the message).
TRAINING_ONLY = {o.key: o.cli for o in options.OPTIONS if o.key in ("optimizer", "ckpt", "fit_gib") or
                 o.group in options.PLANNER_GROUPS}


def missing_step_options(args: argparse.Namespace) -> list[str]:
    """``--batch`` / ``--seq-len`` when a step option is given without them (the step needs both)."""
    if not any(getattr(args, k) not in (None, False) for k in STEP_OPTIONS):
        return []
    return [o.cli for o in options.OPTIONS if o.cli_required and o.cli and getattr(args, o.key) is None]


def inference_refusal(args: argparse.Namespace) -> str | None:
    """With ``--inference``, the first training option given too (its flag), which is refused: inference has no
    optimizer, no backward, no checkpointing, no fine-tuning plan, and ``--fit-gib`` searches a training peak."""
    if not getattr(args, "inference", False):
        return None
    for key, flag in TRAINING_ONLY.items():
        if getattr(args, key, None) not in (None, False):
            return flag
    for o in options.OPTIONS:  # a menu's own flags (--freeze-embeddings, --freeze-all-but-head)
        if o.group in options.PLANNER_GROUPS:
            for choice in o.choices:
                if choice.cli is not None and getattr(args, choice.dest, False):
                    return choice.cli
    return None


def inference_span(args: argparse.Namespace, inv: Any) -> Any:
    """``--inference``: the inference span's costs (:func:`calculator.costs.compute_inference`), else None."""
    if not getattr(args, "inference", False):
        return None
    s = costs.settings(args.batch if args.batch is not None else "", args.seq_len if args.seq_len is not None else "",
                       args.dtype or options.DTYPE.default, attention=args.attention or options.ATTENTION.default,
                       autocast=args.mixed_precision or options.MIXED_PRECISION.default)
    return costs.compute_inference(inv, s)


def training_step(args: argparse.Namespace, inv: Any, plan: Any) -> costs.Costs | None:
    """The step's costs when any of its options is given (B and L are then required), else None."""
    if not any(getattr(args, k) not in (None, False) for k in STEP_OPTIONS) or getattr(args, "inference", False):
        return None
    # Unset, an option takes its declared default; B and L have none here (cli_required): "" is their error.
    value: dict[str, Any] = {}
    for o in options.OPTIONS:
        if o.key in STEP_OPTIONS:
            given = getattr(args, o.key)
            value[o.key] = given if given is not None else ("" if o.cli_required else o.default)
    s = costs.settings(value["batch"], value["seq_len"], value["dtype"], value["optimizer"], value["ckpt"],
                       attention=value["attention"], autocast=value["mixed_precision"])
    return costs.compute(inv, s, plan)


def main(argv: Sequence[str] | None = None) -> int:
    """:func:`run`, with anything that is not a coded input error still reported as one line and exit status 2:
    ``out_of_memory`` (every input is bounded, but a machine may have little memory) or ``internal``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return run(argv)
    except MemoryError:
        code, message = "out_of_memory", CalcError("out_of_memory").message(norm_lang(_option(argv, "--lang")))
    except Exception as exc:  # noqa: BLE001 - one coded line, never a traceback
        code = "internal"
        message = CalcError("internal", kind=type(exc).__name__).message(norm_lang(_option(argv, "--lang")))
    return _fail(code, message, _option(argv, "--format") == "json")


def run(argv: list[str]) -> int:
    """The CLI itself: parse, build, plan, cost, print; coded errors exit with status 2."""
    as_json = _option(argv, "--format") == "json"
    # The language is read before argparse too, so its help and its errors are in it.
    lang = norm_lang(_option(argv, "--lang"))
    try:
        args = make_parser(lang).parse_args(argv)
    except UsageError as exc:
        return _fail("usage", usage_message(str(exc), lang), as_json)
    if args.list_presets:
        print("\n".join(PRESETS))
        return 0
    missing = missing_step_options(args)
    if missing:
        return _fail("usage", pick(WORDS["step_needs"], args.lang, missing=pick(WORDS["and"], args.lang).join(missing))
                     + punct("sentence_gap", args.lang) + pick(WORDS["see_help"], args.lang), as_json)
    refused = inference_refusal(args)
    if refused is not None:
        return _fail("costs_inference_option", CalcError("costs_inference_option", option=refused).message(args.lang),
                     as_json)
    lora_given = any(getattr(args, k) is not None for k in LORA_OPTIONS)
    if lora_given and _freezing(args):
        return _fail("plan_conflict", CalcError("plan_conflict").message(args.lang), as_json)
    checkpoint = hub_data = None
    try:
        if getattr(args, "model", None):  # the Hub: config.json and the checkpoint's headers (calculator/hub.py)
            checkpoint, inv, hub_data = from_hub(args)
            raw = checkpoint.config
        else:
            raw = load_config(args)
            inv = build(raw, args.architecture, False if args.no_pooler else None)
        plan = make_plan(args, inv)
        step = training_step(args, inv, plan)
        inference = inference_span(args, inv)
        gpu = None if args.gpu_gb is None else views.costs.gpu_gb(args.gpu_gb)
        fitted = None
        if step is not None and args.fit_gib is not None:
            from .costs.fit import budget_bytes, fit

            fitted = fit(inv, step.settings, plan, budget_bytes(args.fit_gib), step.weights)
    except CalcError as exc:
        return _fail(exc.code, exc.message(args.lang), as_json)
    except FileError as exc:
        return _fail("file", exc.message(args.lang), as_json)
    told = views.config_notes(raw, args.lang, inv)
    if args.format == "json":
        data = views.to_json(inv, plan if plan is not None and plan.method == "lora" else None)
        data["counts"] = counts.counts_json(inv)
        if plan is not None and plan.method == "freeze":
            data["freeze"] = plan.to_dict(args.lang)
        elif plan is not None:
            data["peft"]["warnings"] = [w.to_dict(args.lang) for w in plan.warnings]
        if step is not None:
            data["costs"] = step.to_dict()
            if gpu is not None:
                verdict, _ = views.costs.step_fits(step, gpu, args.lang)  # the peak, else its proven bounds, else the sum
                data["costs"].update({"gpu_gb": gpu, "fits": verdict})
            if fitted is not None:
                data["costs"]["fit"] = fitted
        if inference is not None:
            data["costs"] = inference.to_dict()
            if gpu is not None:
                verdict, _ = views.inference.fits(inference, gpu, args.lang)  # the peak, else its proven bounds
                data["costs"].update({"gpu_gb": gpu, "fits": verdict})
        if told:
            data["notes"] = told
        if hub_data is not None:
            data["hub"] = hub_data
        out = json.dumps(data, ensure_ascii=False, indent=2)
    else:
        markdown = args.format == "markdown"
        summary = markdown and not (args.table or args.full)
        if summary:
            out = views.summary_markdown(inv, args.lang, name=args.label or args.preset or (
                checkpoint.pinned if checkpoint is not None else None), plan=plan)
        elif markdown:
            out = views.markdown_table(inv, args.lang, compact=not args.full)
        else:
            out = views.text_report(inv, args.lang, compact=not args.full)
        if args.counts:
            out += "\n" + views.counts_report(inv, args.lang, markdown)
        if plan is not None and not summary:
            out += "\n" + views.plan_report(plan, args.lang, markdown, args.full)
        if step is not None:
            out += "\n" + views.costs.render(step, args.lang, markdown, views.costs.grouped_convolutions(inv), inv=inv, gpu=gpu,
                                            fit=fitted)
        if inference is not None:
            out += "\n" + views.inference.render(inference, args.lang, markdown, gpu)
        if hub_data is not None:
            from .views import hub as hub_view

            out += "\n" + hub_view.render(hub_data, args.lang, markdown)
        if told:
            out = views.notes_block(told, markdown) + out
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0
