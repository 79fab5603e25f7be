"""``python -m calculator``: the engine from a shell, for forum answers and scripts.

Bad input never shows a traceback: exit status 2 and one line on stderr,
``error: <code>: <message>``.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from . import views
from .build import build
from .config import parse_json
from .errors import CalcError
from .presets import PRESETS, get_preset


class _Parser(argparse.ArgumentParser):
    """argparse exits with status 2 already; make its message follow our one-line format."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"error: usage: {message}\n")


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
    p.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    p.add_argument("--full", action="store_true", help="text/markdown: every tensor of every layer instead of layer 0 × L")
    p.add_argument("--lang", choices=("en", "zh"), default="en")
    p.add_argument("--list-presets", action="store_true", help="print the preset names and exit")
    return p


def load_config(args: argparse.Namespace) -> dict[str, Any]:
    if args.config:
        if args.config == "-":
            data = sys.stdin.buffer.read()
        else:
            try:
                with open(args.config, "rb") as fh:
                    data = fh.read()
            except OSError as exc:
                raise SystemExit(_fail("file", f"cannot read {args.config}: {exc.strerror}"))
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise CalcError("invalid_json", detail="the file is not UTF-8 text") from None
        return parse_json(text)
    return dict(get_preset(args.preset or "bert-base-uncased").config)


def _fail(code: str, message: str) -> int:
    print(f"error: {code}: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    if args.list_presets:
        print("\n".join(PRESETS))
        return 0
    try:
        raw = load_config(args)
        inv = build(raw, args.architecture, False if args.no_pooler else None)
    except CalcError as exc:
        return _fail(exc.code, exc.message(args.lang))
    if args.format == "json":
        out = json.dumps(views.to_json(inv), ensure_ascii=False, indent=2)
    elif args.format == "markdown":
        out = views.markdown_table(inv, args.lang, compact=not args.full)
    else:
        out = views.text_report(inv, args.lang, compact=not args.full)
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0
