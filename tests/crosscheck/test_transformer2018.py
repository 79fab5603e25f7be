"""Cross-check the 2018 Transformer family against the model code itself and against the famous printout.

Independent sides:

* ``reference/transformer2018_torch.py``: the 2018 modules of
  jadore801120/attention-is-all-you-need-pytorch, rebuilt with torch; compared
  name by name (shape, tie, trainability, the three totals) for all four
  combinations of the two sharing flags and for random sizes;
* ``reference/transformer2018_printout.txt``: the one-layer printout from the
  google-research/bert issue, parsed line by line (names, shapes, counts and
  the printed total); nothing in this file types those numbers.
"""
from __future__ import annotations

import glob
import random
import re
from pathlib import Path

import pytest

from calculator.build import build
from calculator.errors import CalcError

from .framework import describe
from .reference.transformer2018_torch import Transformer

HERE = Path(__file__).resolve().parent
PRINTOUT = HERE / "reference" / "transformer2018_printout.txt"
SEED_GLOB = "/work/shared/seeds/001_*.txt"
ROW = re.compile(r"^weight name: (\S+) \| size: \| \[([\d, ]+)\] \| count: \| (\d+) \|$")
TOTAL = re.compile(r"^# parameters: (\d+) \|")

FLAGS = [(a, b) for a in (True, False) for b in (True, False)]


def torch_model(c: dict):
    import torch

    torch.manual_seed(0)
    return Transformer(**c)


def compare(c: dict) -> None:
    inv = build(dict(c, model_type="transformer"))
    fw = describe(torch_model(c))
    ours = [(t.name, t.shape, t.tied_to, t.trainable) for t in inv.tensors]
    theirs = [(t.name, t.shape, t.tied_to, t.trainable) for t in fw.tensors]
    assert [o[0] for o in ours] == [t[0] for t in theirs]
    assert ours == theirs
    assert inv.total == fw.total
    assert inv.trainable == fw.trainable
    assert inv.state_dict_total == fw.state_dict_total


PRINTOUT_CONFIG = dict(n_src_vocab=5395, n_tgt_vocab=5395, len_max_seq=32, n_layers=1)


@pytest.mark.parametrize("prj,src_tgt", FLAGS)
def test_printout_size_all_flag_combinations(prj, src_tgt):
    compare(dict(PRINTOUT_CONFIG, tgt_emb_prj_weight_sharing=prj, emb_src_tgt_weight_sharing=src_tgt))


@pytest.mark.parametrize("prj,src_tgt", FLAGS)
def test_constructor_defaults_six_layers(prj, src_tgt):
    compare(dict(n_src_vocab=1000, n_tgt_vocab=1000, len_max_seq=50,
                 tgt_emb_prj_weight_sharing=prj, emb_src_tgt_weight_sharing=src_tgt))


def random_configs(n: int = 12, seed: int = 2018):
    rng = random.Random(seed)
    for _ in range(n):
        d = rng.choice([8, 16, 24, 32])
        prj, src_tgt = rng.choice(FLAGS)
        src = rng.randint(2, 300)
        yield dict(
            n_src_vocab=src,
            n_tgt_vocab=src if src_tgt else rng.randint(2, 300),
            len_max_seq=rng.randint(1, 40),
            d_word_vec=d, d_model=d,
            d_inner=rng.randint(1, 64),
            n_layers=rng.randint(0, 3),
            n_head=rng.randint(1, 4),
            d_k=rng.randint(1, 12),
            d_v=rng.randint(1, 12),
            tgt_emb_prj_weight_sharing=prj,
            emb_src_tgt_weight_sharing=src_tgt,
        )


@pytest.mark.parametrize("c", list(random_configs()), ids=lambda c: "-".join(str(v) for v in c.values()))
def test_random_sizes(c):
    compare(c)


def test_vocab_mismatch_is_refused_by_both():
    c = dict(PRINTOUT_CONFIG, n_tgt_vocab=5000)
    with pytest.raises(CalcError) as err:
        build(dict(c, model_type="transformer"))
    assert err.value.code == "vocab_mismatch"
    with pytest.raises(AssertionError):
        torch_model(c)
    compare(dict(c, emb_src_tgt_weight_sharing=False))  # without that flag both accept it


def test_d_word_vec_must_equal_d_model_in_both():
    c = dict(PRINTOUT_CONFIG, d_word_vec=256)
    with pytest.raises(CalcError) as err:
        build(dict(c, model_type="transformer"))
    assert err.value.code == "bad_value"
    with pytest.raises(Exception):
        torch_model(c)


# ----------------------------------------------------------------- the printout


def parse_printout(lines):
    rows, total = [], None
    for line in lines:
        m = TOTAL.match(line)
        if m:
            total = int(m.group(1))
        m = ROW.match(line)
        if m:
            rows.append((m.group(1), tuple(int(x) for x in m.group(2).split(",")), int(m.group(3))))
    return rows, total


def test_printout_fixture_is_the_page_verbatim():
    seeds = glob.glob(SEED_GLOB)
    if not seeds:
        pytest.skip("the stored page is not on this machine")
    page = Path(seeds[0]).read_text(encoding="utf-8").splitlines()
    fixture = [
        line for line in PRINTOUT.read_text(encoding="utf-8").splitlines()
        if line.startswith("# parameters:") or not line.startswith("# ")  # drop our provenance comment
    ]
    start = page.index(fixture[0])
    assert page[start:start + len(fixture)] == fixture


def test_engine_reproduces_the_printout_name_by_name():
    rows, printed_total = parse_printout(PRINTOUT.read_text(encoding="utf-8").splitlines())
    assert len(rows) > 40 and printed_total is not None
    inv = build(dict(PRINTOUT_CONFIG, model_type="transformer"))
    assert [(t.name, t.shape, t.count) for t in inv.tensors] == rows
    # The printout's total is model.parameters() (shared embeddings once, frozen tables included) ...
    assert inv.total == printed_total
    # ... while its rows list every state_dict entry, so they add up to more.
    assert inv.state_dict_total == sum(count for _, _, count in rows)
    # And the framework agrees with the printout too.
    fw = describe(torch_model(PRINTOUT_CONFIG))
    assert [(t.name, t.shape) for t in fw.tensors] == [(n, s) for n, s, _ in rows]
    assert fw.total == printed_total
