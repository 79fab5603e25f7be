"""Hypothesis properties of the engine: structure, not examples."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from calculator.build import build
from calculator.errors import CalcError
from calculator.families import FAMILIES

sizes = st.integers(min_value=1, max_value=4096)
heads = st.sampled_from([1, 2, 4, 8, 16, 32])


@st.composite
def bert_configs(draw):
    h = draw(heads)
    return {
        "model_type": draw(st.sampled_from(["bert", "roberta", "electra"])),
        "vocab_size": draw(st.integers(2, 200_000)),
        "hidden_size": h * draw(st.integers(1, 128)),
        "num_attention_heads": h,
        "num_hidden_layers": draw(st.integers(0, 48)),
        "intermediate_size": draw(sizes),
        "max_position_embeddings": draw(st.integers(2, 4096)),
        "type_vocab_size": draw(st.integers(1, 4)),
    }


@settings(max_examples=200, deadline=None)
@given(bert_configs(), st.sampled_from([1, 2, 3]))
def test_heads_do_not_change_the_count(raw, factor):
    """Splitting H into more heads reshapes Q, K, V; it adds no parameter."""
    one = build(dict(raw, num_attention_heads=1))
    base = build(raw)
    assert one.total == base.total
    if raw["hidden_size"] % (raw["num_attention_heads"] * factor) == 0:
        assert build(dict(raw, num_attention_heads=raw["num_attention_heads"] * factor)).total == base.total


@settings(max_examples=200, deadline=None)
@given(bert_configs())
def test_linear_in_the_number_of_layers(raw):
    n = raw["num_hidden_layers"]
    f = lambda k: build(dict(raw, num_hidden_layers=k)).total  # noqa: E731
    assert f(n + 1) - f(n) == f(1) - f(0)
    assert f(n) == f(0) + n * (f(1) - f(0))


@settings(max_examples=200, deadline=None)
@given(bert_configs(), st.sampled_from(["none", "mlm"]))
def test_total_is_the_unique_parameters(raw, head):
    """torchinfo's rule: the total counts each storage once; the state_dict counts names."""
    arch = {"none": None, "mlm": FAMILIES[raw["model_type"]].architectures[1].name}[head]
    inv = build(raw, arch)
    assert inv.total == sum(t.count for t in inv.tensors if t.tied_to is None)
    assert inv.state_dict_total - inv.total == sum(t.count for t in inv.tensors if t.tied_to)
    names = [t.name for t in inv.tensors]
    assert len(names) == len(set(names))
    for t in inv.tensors:
        if t.tied_to:
            target = next(x for x in inv.tensors if x.name == t.tied_to)
            assert target.shape == t.shape and target.tied_to is None
            assert names.index(t.tied_to) < names.index(t.name)


@settings(max_examples=200, deadline=None)
@given(bert_configs())
def test_vocabulary_enters_once_per_embedding_row(raw):
    """One more token adds one row of H to the word embeddings (ELECTRA: of E)."""
    a, b = build(raw), build(dict(raw, vocab_size=raw["vocab_size"] + 1))
    width = raw["hidden_size"] if raw["model_type"] != "electra" else 128
    assert b.total - a.total == width


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(
    st.sampled_from(["hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size",
                     "intermediate_size", "model_type", "tie_word_embeddings", "num_labels"]),
    st.one_of(st.integers(-10, 10**8), st.floats(allow_nan=True), st.text(max_size=8), st.booleans(), st.none(),
              st.lists(st.integers(), max_size=2)),
))
def test_arbitrary_input_gives_a_count_or_a_coded_error(raw):
    """Whatever is pasted: an integer total, or a CalcError with a message in both languages."""
    try:
        inv = build(raw)
    except CalcError as exc:
        assert exc.message("en") and exc.message("zh")
    else:
        assert isinstance(inv.total, int) and inv.total >= 0
