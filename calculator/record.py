"""A frozen record written out, for the classes on the page's import path (issue 31).

``@dataclass(frozen=True)`` writes a class's ``__init__``, ``__eq__``, ``__hash__`` and ``__repr__`` as source
text and compiles it when the module is imported: ~5 ms a class in Pyodide (more on a loaded phone), paid by
every reader before the first answer. A :class:`Record` subclass lists its fields in ``__slots__`` (in the order
a dataclass would take them), writes its ``__init__`` (setting them with :meth:`Record._set`), and behaves as
the frozen dataclass did: equal when of the same class with equal fields in order, hashed by those fields,
the same repr, and :class:`dataclasses.FrozenInstanceError` on assignment; :meth:`Record.as_dict` is
``dataclasses.asdict`` for fields of plain values (numbers, strings). What it does not offer:
``dataclasses.replace`` and ``fields``; a class that needs them stays a dataclass.

Standard library only (the page runs it in Pyodide).
"""
from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any


class Record:
    """The base of the written-out frozen records: fields are the subclass's ``__slots__``, in order."""

    __slots__: tuple[str, ...] = ()

    def _set(self, **values: Any) -> None:
        """Set fields from ``__init__`` (the only place they are set: assignment afterwards raises)."""
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def as_dict(self) -> dict[str, Any]:
        """The fields by name, in order: ``dataclasses.asdict`` of a record whose fields are plain values."""
        return {name: getattr(self, name) for name in self.__slots__}

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is self.__class__:
            assert isinstance(other, Record)
            return self._fields() == other._fields()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({inner})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
