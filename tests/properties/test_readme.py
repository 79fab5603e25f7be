"""The README stays a README: short, with the two commands, its links alive.

Measurements go to benchmarks/README.md and working on the project to
CONTRIBUTING.md; history lives in commits. A README that grows past
``MAX_LINES`` has become a lab notebook again.
"""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_LINES = 250


def test_the_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines (at most {MAX_LINES}): move detail out"


def test_the_readme_names_the_two_commands():
    text = README.read_text(encoding="utf-8")
    for command in ("make serve", "make test"):
        assert re.search(rf"^{command}\b", text, re.M), f"README.md does not show `{command}` as a command line"


def test_the_readmes_local_links_exist():
    for readme in (README, ROOT / "CONTRIBUTING.md", ROOT / "benchmarks" / "README.md"):
        text = readme.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (readme.parent / target).exists(), f"{readme.relative_to(ROOT)} links to a missing {target}"
