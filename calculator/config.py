"""Reading a config: Hugging Face key names, HF defaults, and strict validation.

A family declares its fields once (key, default, lower and upper bound); the
same declaration serves ``config.json`` files, CLI flags, the page's form and
its share links, so a key cannot be accepted in one place and refused in another.
"""
from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any, Mapping

from .errors import CalcError

#: Upper bound on any one size (vocabulary, widths, positions). Ten million is
#: above every published vocabulary (the largest are ~260k) and keeps counts of
#: a whole model far below 2**53, so JavaScript numbers stay exact.
MAX_SIZE = 10_000_000
#: Upper bound on the layer count: keeps the per-tensor table under ~10k rows,
#: which a browser renders without freezing.
MAX_LAYERS = 512
#: Largest total the calculator reports (also below 2**53).
MAX_TOTAL = 10**15


#: A text in both languages: ``{"en": ..., "zh": ...}``.
Label = dict[str, str]


@dataclass(frozen=True)
class Field:
    """One hyperparameter as it appears in config.json, with everything the page and the tests need.

    ``kind`` is ``"int"``, ``"bool"``, ``"choice"`` (one string of ``choices``) or
    ``"ints"`` (a list of whole numbers, each within the bounds, such as Funnel's
    ``block_sizes``; the form and the share link write it ``4|4|4``), or
    ``"flags"`` (a list of strings, or one string joined with ``|`` as DeBERTa's
    ``pos_att_type`` may be written; names outside ``choices`` are ignored, as
    transformers ignores them). ``default_from`` names an earlier field whose value
    is the default (ALBERT-style ``embedding_size`` defaults to nothing, DeBERTa's
    ``pooler_hidden_size`` to ``hidden_size``). ``sentinels`` are values accepted
    outside the bounds because transformers gives them a meaning (``-1``: "use
    max_position_embeddings"). ``optional`` fields may be ``null``. ``sample`` is
    the range the cross-check draws random values from (None: not varied).
    """

    key: str
    default: Any
    kind: str = "int"
    minimum: int = 1
    maximum: int = MAX_SIZE
    label: Label = dc_field(default_factory=dict, compare=False)
    default_from: str | None = None
    sentinels: tuple[int, ...] = ()
    choices: tuple[str, ...] = ()
    optional: bool = False
    sample: tuple[int, int] | None = None


#: Deepest nesting of arrays and objects a config may have. A config.json is two or three
#: levels deep (``id2label``, ``rope_scaling``); Pyodide's stack overflows (a fatal error of
#: the whole runtime, not a RecursionError) a few thousand levels down, so the depth is
#: counted before the parser sees the text.
MAX_JSON_DEPTH = 64
#: Digits an integer in a config may have before it is called too large unparsed: Python
#: refuses to convert more than 4,300 (and a config's sizes have at most 8).
MAX_INT_DIGITS = 30


def json_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in ``text`` outside strings, without parsing it.

    Linear and without recursion: escapes go first (a backslash and the character
    after it), then strings (``"[^"]*"`` cannot backtrack), and the brackets left are
    summed by ``itertools.accumulate``.
    """
    bare = re.sub(r'"[^"]*"', "", re.sub(r"\\.", "", text, flags=re.S))
    steps = {"[": 1, "{": 1, "]": -1, "}": -1}
    brackets = re.sub(r"[^\[\]{}]+", "", bare)
    return max(accumulate(map(steps.__getitem__, brackets)), default=0)


class HugeInt(str):
    """A JSON integer too long to convert (its digits, as text): any field reading it says ``too_large``."""


def _parse_int(digits: str) -> Any:
    body = digits.lstrip("-")
    return int(digits) if len(body) <= MAX_INT_DIGITS else HugeInt(digits)


def loads_bounded(text: str) -> Any:
    """``json.loads`` with the depth counted first and over-long integers kept as :class:`HugeInt`.

    Raises ``CalcError("invalid_json", detail="too_deep")`` for nesting deeper than
    :data:`MAX_JSON_DEPTH`; other errors are ``json.loads``'s own.
    """
    if json_depth(text) > MAX_JSON_DEPTH:
        raise CalcError("invalid_json", detail="too_deep")
    return json.loads(text, parse_int=_parse_int)


def parse_json(text: str) -> dict[str, Any]:
    """Parse a pasted or uploaded config.json into a dict, with a coded error if it is not one.

    A byte order mark at the start is dropped, as the CLI's ``utf-8-sig`` and a file
    upload drop it: an editor on Windows writes one, and it is not part of the JSON.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise CalcError("invalid_json", detail="empty")
    try:
        value = loads_bounded(text)
    except CalcError:
        raise  # too deep: already coded (a CalcError is a ValueError too)
    except RecursionError:
        raise CalcError("invalid_json", detail="too_deep") from None
    except ValueError as exc:
        raise CalcError("invalid_json", line=getattr(exc, "lineno", 1), column=getattr(exc, "colno", 1)) from None
    if not isinstance(value, dict):
        raise CalcError("not_an_object", kind=type(value).__name__)
    return value


#: Full-width digits, signs and comma (U+FF10–FF19, U+FF0B, U+FF0D, U+FF0E, U+FF0C) to ASCII.
_FULL_WIDTH = {0xFF10 + i: ord("0") + i for i in range(10)} | {
    0xFF0B: ord("+"), 0xFF0D: ord("-"), 0xFF0E: ord("."), 0xFF0C: ord(",")}
#: A whole number written with thousands separators, as a model card writes it ("30,522").
_GROUPED = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+")


def coerce_int(key: str, value: Any) -> int:
    """Accept JSON integers, and strings of decimal digits (from a URL query or a form field)."""
    if isinstance(value, bool):
        raise CalcError("not_integer", key=key, value=value)
    if isinstance(value, HugeInt):  # a JSON integer of more than MAX_INT_DIGITS digits
        raise CalcError("too_large", key=key, value=str(value), maximum=MAX_SIZE)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < MAX_SIZE * 10:
        # JSON written by some tools says 768.0; HF would pass it to nn.Linear and fail,
        # but the intent is unambiguous and we would rather answer than nitpick.
        return int(value)
    if isinstance(value, str):
        # A Chinese input method in full-width mode types "７６８" (and "－", "．", "＋").
        text = value.strip().translate(_FULL_WIDTH)
        if _GROUPED.fullmatch(text):
            text = text.replace(",", "")  # "30,522" is 30522; "30,52" or "3,0522" stay errors
        whole, dot, fraction = text.partition(".")
        if dot and fraction.strip("0") == "" and whole:
            text = whole  # "768.0" means 768, as 768.0 in JSON does
        body = text[1:] if text[:1] in "+-" else text
        if body.isdigit() and body.isascii():
            if len(body) > 18:  # int() of a pasted 5,000-digit string is slow; it is too large anyway
                raise CalcError("too_large", key=key, value=value, maximum=MAX_SIZE)
            return int(text)
    raise CalcError("not_integer", key=key, value=value)


def coerce_bool(key: str, value: Any) -> bool:
    """Accept JSON booleans and the spellings a URL or form uses (1/0, true/false)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "0", "false"):
        return value.strip().lower() in ("1", "true")
    raise CalcError("not_boolean", key=key, value=value)


def coerce_flags(key: str, value: Any, choices: tuple[str, ...]) -> tuple[str, ...]:
    """A list of names, or ``"a|b"`` as transformers also accepts; unknown names dropped, order kept."""
    if value is None:
        return ()
    if isinstance(value, str):
        parts = [p.strip().lower() for p in value.split("|")]
    elif isinstance(value, (list, tuple)) and all(isinstance(p, str) for p in value):
        parts = [p.strip().lower() for p in value]
    else:
        raise CalcError("bad_value", key=key, value=value)
    out: list[str] = []
    for p in parts:
        if p in choices and p not in out:
            out.append(p)
    return tuple(out)


def coerce_choice(key: str, value: Any, choices: tuple[str, ...]) -> str:
    """One of ``choices``, spelled exactly (transformers' Literal fields refuse "CLS" for "cls")."""
    if isinstance(value, str) and value.strip() in choices:
        return value.strip()
    raise CalcError("bad_value", key=key, value=value)


def read_field(f: Field, value: Any) -> Any:
    """One value, checked: the field's kind, bounds and sentinels."""
    if f.kind == "bool":
        return coerce_bool(f.key, value)
    if f.kind == "flags":
        return coerce_flags(f.key, value, f.choices)
    if f.kind == "choice":
        return coerce_choice(f.key, value, f.choices)
    if f.kind == "ints":
        return coerce_ints(f, value)
    number = coerce_int(f.key, value)
    if number in f.sentinels:
        return number
    if number < 0:
        raise CalcError("negative", key=f.key, value=number)
    if number < f.minimum:
        raise CalcError("zero", key=f.key, value=number)
    if number > f.maximum:
        raise CalcError("too_large", key=f.key, value=number, maximum=f.maximum)
    return number


def read_fields(fields: tuple[Field, ...], raw: Mapping[str, Any], aliases: Mapping[str, str]) -> dict[str, Any]:
    """Fill defaults, apply HF's attribute aliases, and validate each field."""
    source = dict(raw)
    for alias, key in aliases.items():
        if alias in source and key not in source:
            source[key] = source[alias]
    values: dict[str, Any] = {}
    for f in fields:
        value = source.get(f.key)
        if value is None or (isinstance(value, str) and f.kind in ("int", "ints") and f.optional and not value.strip()):
            if f.optional and f.key in source:
                values[f.key] = None
                continue
            value = values[f.default_from] if f.default_from is not None else f.default
            if value is None:
                values[f.key] = None
                continue
        values[f.key] = read_field(f, value)
    return values


def num_labels_of(raw: Mapping[str, Any]) -> Any:
    """HF derives num_labels from id2label when a fine-tuned config.json carries only the mapping."""
    if raw.get("num_labels") is not None:
        return raw["num_labels"]
    id2label = raw.get("id2label")
    if isinstance(id2label, dict) and id2label:
        return len(id2label)
    return None


def check_heads(values: Mapping[str, int], hidden_key: str, heads_key: str) -> None:
    hidden, heads = values[hidden_key], values[heads_key]
    if hidden % heads != 0:
        raise CalcError("heads_not_divisor", fields=(heads_key, hidden_key), hidden_key=hidden_key, hidden=hidden,
                        heads_key=heads_key, heads=heads)


def coerce_fraction(key: str, value: Any) -> float:
    """A rate in [0, 1]: JSON numbers or decimal strings; anything else is ``bad_fraction``."""
    if isinstance(value, bool):
        raise CalcError("bad_fraction", key=key, value=value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise CalcError("bad_fraction", key=key, value=value) from None
    elif isinstance(value, (int, float)):
        number = float(value)
    else:
        raise CalcError("bad_fraction", key=key, value=value)
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise CalcError("bad_fraction", key=key, value=value)
    return number


def coerce_ints(f: Field, value: Any) -> tuple[int, ...]:
    """A list of whole numbers (Funnel's ``block_sizes``): a JSON array, or text ``4|4|4`` / ``4,4,4``.

    Each number is checked as an ``"int"`` field with the same bounds; the list is at
    most :data:`MAX_LAYERS` long (it describes layers).
    """
    if isinstance(value, str):
        parts: list[Any] = [p for p in value.replace(",", "|").split("|")]
        parts = [p for p in (q.strip() for q in parts) if p]
    elif isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        raise CalcError("bad_value", key=f.key, value=value)
    if len(parts) > MAX_LAYERS:
        raise CalcError("too_large", key=f.key, value=len(parts), maximum=MAX_LAYERS)
    one = Field(f.key, 0, minimum=f.minimum, maximum=f.maximum)
    return tuple(read_field(one, p) for p in parts)
