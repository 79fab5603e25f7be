"""One check for a published config.json pasted whole into the CLI: it must be what transformers builds.

Every ``test_published_*.py`` file holds the config.json files of one family (or a few) as
published on the Hub, with where each was read, and calls :func:`check_published`: the CLI's
answer for the pasted text against the class transformers 5.23 loads it as, built from the
same keys on the meta device: tensors (names, shapes, ties, trainable) in ``state_dict``
order, the three totals, and ``num_parameters()`` both ways.
"""
from __future__ import annotations

import contextlib
import io
import json
import tempfile
import warnings
from pathlib import Path

from .framework import build as hf_build
from .framework import describe


def cli_json(config: dict) -> dict:
    """``python -m calculator --config FILE --format json`` on the pasted text, run in this process.

    The CLI's own ``main`` on the file a user pastes the text into: the same parsing and answer as a fresh
    ``python -m calculator`` process, without starting and importing one per config (~0.4 s of CPU each).
    ``--config -`` (stdin) in a real process is proven once, in test_cli_process.py."""
    from calculator import cli

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = cli.main(["--config", str(path), "--format", "json"])
    assert status == 0, out.getvalue()
    return json.loads(out.getvalue())


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
