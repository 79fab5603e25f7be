"""calculator.record.Record against the frozen dataclass it stands in for (issue 31). Standard library only
(runs in Pyodide).

The expected behaviour is the standard library's own: the same class written as ``@dataclass(frozen=True)``
is built here and every answer compared with it (repr, equality, hash, assignment), so the records on the
page's import path say what their dataclasses said.
"""
import dataclasses

from calculator.counts import Count, HubCount
from calculator.options import Choice, Option
from calculator.record import Record


class Pair(Record):
    __slots__ = ("name", "sizes", "flag")

    def __init__(self, name, sizes=(), flag=True):
        self._set(name=name, sizes=sizes, flag=flag)


@dataclasses.dataclass(frozen=True)
class Pair2:
    name: str
    sizes: tuple = ()
    flag: bool = True


def _as_dataclass_repr(record: Record) -> str:
    return repr(record).replace("Pair(", "Pair2(", 1)


def test_repr_eq_hash_as_a_frozen_dataclass():
    for args in ((("a",), {}), (("b", (1, 2)), {"flag": False}), (("c",), {"sizes": ("x",)})):
        a, b = Pair(*args[0], **args[1]), Pair2(*args[0], **args[1])
        assert _as_dataclass_repr(a) == repr(b)
        assert hash(a) == hash(b)  # both: the hash of the fields' tuple
        assert a == Pair(*args[0], **args[1]) and b == Pair2(*args[0], **args[1])
        assert a != Pair("other")
        assert (a == b) is False and a.__eq__(b) is NotImplemented  # another class: not equal, as a dataclass says
        assert a.as_dict() == dataclasses.asdict(b) and list(a.as_dict()) == list(dataclasses.asdict(b))
    assert {Pair("a"), Pair("a"), Pair("b")} == {Pair("a"), Pair("b")}


def test_frozen_as_a_dataclass():
    for obj in (Pair("a"), Pair2("a")):
        for action in (lambda o=obj: setattr(o, "name", "b"), lambda o=obj: delattr(o, "name"),
                       lambda o=obj: setattr(o, "new", 1)):
            try:
                action()
            except dataclasses.FrozenInstanceError:
                continue
            raise AssertionError(f"{type(obj).__name__} should be frozen")
    assert Pair("a").name == "a"


def test_the_records_on_the_page_path():
    """Count, HubCount, Choice and Option: their fields in the order (and with the defaults) their dataclasses had."""
    c = Count("k", 5, "code", {"en": "x"}, {"en": "y"})
    assert (c.added, c.removed, c.base, c.delta) == ((), (), 0, 5)
    assert repr(HubCount("p", "A", 1, "s")) == "HubCount(preset='p', architecture='A', value=1, source='s')"
    assert repr(Choice("none")) == "Choice(value='none', label=None, cli=None, help=None)"
    o = Option("k", "g", {"en": "l"})
    assert (o.help, o.cli, o.metavar, o.default, o.kind, o.choices, o.cli_required, o.codes, o.cli_const) == (
        None, None, None, "", "text", (), False, (), None)
    try:
        hash(c)  # a dict field: unhashable, as the frozen dataclass was
    except TypeError:
        return
    raise AssertionError("a Count holds dicts: it cannot be hashed")
