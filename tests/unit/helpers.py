"""Shared by the unit tests (standard library only: they also run inside Pyodide)."""
from __future__ import annotations

from typing import Any, Callable

from calculator.errors import CalcError


def expect_error(code: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> CalcError:
    """``fn(*args, **kwargs)`` must raise CalcError ``code``, with an English and a distinct Chinese message."""
    try:
        fn(*args, **kwargs)
    except CalcError as exc:
        assert exc.code == code, (exc.code, code)
        assert exc.message("en") and exc.message("zh") and exc.message("en") != exc.message("zh"), code
        return exc
    raise AssertionError(f"expected {code}")
