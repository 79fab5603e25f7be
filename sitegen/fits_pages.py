"""Names for the "What fits" page (what-fits.md): the peak of one training step against a card, and the largest
batch that fits, as the engine gives them today.

Every figure comes from :mod:`calculator.costs` (the step, its peak or the peak's proven bounds) and
:mod:`calculator.costs.fit` (the search), and every verdict from :func:`calculator.views.costs.step_fits`, the
CLI's and the panel's one definition. Where the engine has no exact peak for a setting, or refuses the setting, the
page says so from what is returned here, so it follows the engine as it grows. tests/docs/test_what_fits.py checks
the page against the CLI's ``--format json``.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from calculator import costs, peft
from calculator.build import build
from calculator.costs.fit import GIB, fit
from calculator.costs.peak import BLOCK
from calculator.errors import CalcError
from calculator.presets import PRESETS
from calculator.views import costs as cv


@dataclass(frozen=True)
class Case:
    """One step of a preset's base model, or the engine's refusal of it (``refused``: the error code)."""

    preset: str
    batch: int
    seq_len: int
    checkpointing: bool
    lora: bool
    step: costs.Costs | None
    refused: str | None = None
    #: The refusal's message in each language (the CLI's), where the engine refuses the step.
    messages: tuple[tuple[str, str], ...] = ()
    #: The attention (``--attention``): "eager", or "sdpa" (transformers' default for BGE-M3's class).
    attention: str = "eager"
    #: Mixed precision (``--mixed-precision``): "bf16" (fp32 weights, the forward under bf16 autocast), or None.
    autocast: str | None = None

    def message(self, lang: str) -> str:
        return dict(self.messages).get(lang, "")

    @property
    def exact(self) -> bool:
        return self.step is not None and self.step.peak is not None and self.step.peak.bytes is not None

    @property
    def bounds(self) -> tuple[int, int | None] | None:
        """The peak's proven (lower, upper): both the figure where it is exact (:func:`views.costs.peak_bounds`)."""
        return cv.peak_bounds(self.step.peak) if self.step is not None else None

    def verdict(self, gib: int) -> str:
        """fits / does_not_fit / unknown (or under / over: only the sum), as the CLI's ``--gpu-gb`` says it;
        "refused" where the engine gives no step."""
        if self.step is None:
            return "refused"
        return cv.step_fits(self.step, gib, "en")[0]


@lru_cache(maxsize=None)
def _inventory(preset: str) -> Any:
    return build(PRESETS[preset].config)


def _plan(preset: str, lora: bool) -> Any:
    """peft's LoRA at its default rank on the model_type's default targets (``LoraConfig(r=8)``), or no plan."""
    return peft.lora(_inventory(preset)) if lora else None


@lru_cache(maxsize=None)
def fit_case(preset: str, batch: int, seq_len: int, checkpointing: bool = False, lora: bool = False,
             attention: str = "eager", autocast: str | None = None) -> Case:
    """The step (fp32 weights, AdamW; the forward under ``autocast`` where given) at B, L with the options, for
    both languages' pages (kept: one run per build)."""
    try:
        step = costs.compute(_inventory(preset), costs.settings(batch, seq_len, "fp32", "adamw", checkpointing,
                                                                attention=attention, autocast=autocast),
                             _plan(preset, lora))
    except CalcError as exc:
        return Case(preset, batch, seq_len, checkpointing, lora, None, exc.code,
                    (("en", exc.message("en")), ("zh", exc.message("zh"))), attention, autocast)
    return Case(preset, batch, seq_len, checkpointing, lora, step, attention=attention, autocast=autocast)


@dataclass(frozen=True)
class Largest:
    """The largest batch at L that fits ``gib`` GiB: ``kind`` exact (``low`` = it; 0: none fits), range (at least
    ``low``, less than ``high``), at_least (``low``, nothing proven above), unknown, refused (``code``)."""

    kind: str
    low: int = 0
    high: int | None = None
    code: str | None = None


@lru_cache(maxsize=None)
def largest_batch(preset: str, seq_len: int, gib: int, checkpointing: bool = False, lora: bool = False) -> Largest:
    """``--fit-gib gib`` with ``--seq-len seq_len``: ``costs.fit.max_batch`` and its bounds."""
    case = fit_case(preset, 1, seq_len, checkpointing, lora)
    if case.step is None:
        return Largest("refused", code=case.refused)
    try:
        found = fit(_inventory(preset), case.step.settings, _plan(preset, lora), gib * GIB, case.step.weights)
    except CalcError as exc:
        return Largest("refused", code=exc.code)
    if found["max_batch"] is not None:
        return Largest("exact", found["max_batch"])
    low, over = found["max_batch_at_least"], found["batch_does_not_fit"]
    if over is not None:
        return Largest("range", low, over)
    return Largest("at_least", low) if low else Largest("unknown")


def timeline_figure(case: Case, lang: str, gib: int | None = None) -> str:
    """The panel's chart of live memory through ``case``'s step (:mod:`calculator.page.timeline`), with the card of
    ``gib`` GiB, as one line of HTML; fails the build where the step has no timeline (its peak is not exact)."""
    from calculator.page.timeline import timeline_svg, word

    peak = case.step.peak if case.step is not None else None
    timeline = peak.timeline_dict() if peak is not None and case.exact else None
    if timeline is None:
        raise AssertionError(f"{case.preset} B={case.batch} L={case.seq_len}: no exact peak, so no timeline to draw")
    return (f'<figure class="bp-figure">{timeline_svg(timeline, lang, gib)}'
            f'<figcaption>{html.escape(word("note", lang), quote=False)}</figcaption></figure>')


@lru_cache(maxsize=None)
def embed_case(preset: str, batch: int, seq_len: int, passages: int) -> dict[str, Any]:
    """The panel's inference mode (:func:`calculator.views.embed.embed`) for a preset's base model, fp32, eager: the
    FLOPs of all passages, the forwards run, and the inference span at ``min(B, N)`` (``one``)."""
    from calculator.views import embed

    return embed.embed(_inventory(preset), costs.settings(batch, seq_len), passages)


def embed_time(flops: int, lang: str, tflops: float | None = None) -> str:
    """The panel's estimated time for ``flops`` at ``tflops`` (default: the panel's field's default)."""
    from calculator import options
    from calculator.views import embed

    rate = tflops if tflops is not None else float(options.TFLOPS.default)
    return embed.duration(flops / (rate * 1e12), lang)


def replayed_families(lang: str, attention: str = "eager", autocast: str | None = None,
                      checkpointing: str | None = None) -> str:
    """The families whose forward the peak engine replays tensor by tensor (so the peak is exact in every phase),
    found by asking the engine (:func:`_replayed`), never listed by hand; their titles joined as the language writes a
    list."""
    from calculator.families import FAMILIES
    from calculator.i18n import join_all, pick

    return join_all([pick(FAMILIES[mt].title, lang) for mt in _replayed(attention, autocast, checkpointing)], lang)


def autocast_refused_families(lang: str) -> str:
    """The families whose training step PyTorch itself cannot run under bf16 autocast for their first preset: the
    cost model's own ``autocast_fails`` (the engine refuses those steps with ``costs_forward_fails``, each refusal
    proven by tests/crosscheck/test_costs_autocast.py making PyTorch raise), never listed by hand."""
    from calculator.families import FAMILIES
    from calculator.i18n import join_all, pick

    found = [family for family in sorted(FAMILIES.values(), key=lambda f: f.rank)
             if family.costs is not None and family.costs.autocast_fails is not None and family.presets
             and family.costs.autocast_fails(build(family.presets[0].config).config)]  # the config as read
    return join_all([pick(family.title, lang) for family in found], lang)


@lru_cache(maxsize=None)
def _replayed(attention: str, autocast: str | None, checkpointing: str | None) -> tuple[str, ...]:
    """The model types :func:`replayed_families` lists, asked once per setting for both languages: each family's first
    preset at B = 1, L = 8 with ``attention``, as the preset's class, or the first class the family's training step
    covers when that is not it (Perceiver's step covers its text classes, not the base model), listed when its
    timeline's forward phase is exact (``autocast`` "bf16": under mixed precision, fp32 weights); with
    ``checkpointing`` ("reentrant"), listed when every phase is exact (the layers' recomputation lies in the
    backward)."""
    from calculator.families import FAMILIES

    found = []
    for family in sorted(FAMILIES.values(), key=lambda f: f.rank):
        if family.costs is None or not family.presets:
            continue
        try:
            settings = costs.settings(1, 8, checkpointing=checkpointing or False, attention=attention,
                                      autocast=autocast)
            inv = build(family.presets[0].config)
            covered = family.costs.architectures
            if covered is not None and inv.architecture not in covered:
                inv = build(family.presets[0].config, covered[0])
            peak = costs.compute(inv, settings).peak
        except CalcError:
            continue
        exact = [p.exact for p in peak.timeline if checkpointing or p.name == "forward"] if peak is not None else []
        if exact and all(exact):
            found.append(family.model_type)
    return tuple(found)


def context() -> dict[str, Any]:
    """The names the page uses (merged into :func:`sitegen.context.page_context`)."""
    from calculator import options

    return {"fit_case": fit_case, "largest_batch": largest_batch, "peak_bounds": cv.peak_bounds,
            "timeline_figure": timeline_figure, "embed_case": embed_case, "replayed_families": replayed_families, "autocast_refused_families": autocast_refused_families, "embed_time": embed_time,
            "tflops_default": options.TFLOPS.default, "cuda_block": BLOCK}
