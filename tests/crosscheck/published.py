"""One check for a published config.json pasted whole into the CLI: it must be what transformers builds.

Every ``test_published_*.py`` file holds the config.json files of one family (or a few) as
published on the Hub, with where each was read, and calls :func:`check_published`: the CLI's
answer for the pasted text against the class transformers 5.23 loads it as, built from the
same keys on the meta device: tensors (names, shapes, ties, trainable) in ``state_dict``
order, the three totals, and ``num_parameters()`` both ways.
"""
from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

from .framework import build as hf_build
from .framework import describe

ROOT = Path(__file__).resolve().parents[2]


def cli_json(config: dict) -> dict:
    """``python -m calculator --config - --format json`` on the pasted text."""
    p = subprocess.run(
        [sys.executable, "-m", "calculator", "--config", "-", "--format", "json"], cwd=ROOT,
        input=json.dumps(config), capture_output=True, text=True, timeout=120,
    )
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def check_published(config: dict, architecture: str | None = None) -> None:
    """The CLI's answer for ``config`` equals transformers' for ``architecture``.

    ``architecture`` defaults to the file's ``architectures[0]``, else the family's base model
    (a file that lists no class loads as the base model).
    """
    from calculator.families import FAMILIES

    architecture = architecture or (config.get("architectures") or [FAMILIES[config["model_type"]].base])[0]
    ours = cli_json(config)
    assert ours["architecture"] == architecture
    hf_config = {k: v for k, v in config.items() if k not in ("model_type", "architectures")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = hf_build(config["model_type"], architecture, hf_config)
    theirs = describe(model)
    assert [(t["name"], tuple(t["shape"]), t["tied_to"], t["trainable"]) for t in ours["tensors"]] == [
        (t.name, t.shape, t.tied_to, t.trainable) for t in theirs.tensors
    ]
    assert (ours["total"], ours["trainable"], ours["state_dict_total"]) == (
        theirs.total, theirs.trainable, theirs.state_dict_total,
    )
    assert ours["num_parameters"] == {
        "all": model.num_parameters(), "exclude_embeddings": model.num_parameters(exclude_embeddings=True),
    }
