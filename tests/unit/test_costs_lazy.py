"""The cost engine's package re-exports its names lazily (issue 31: the page's default answer counts parameters
only, so the simulator, the peak and the step are imported when a step is costed). Standard library only (runs
in Pyodide).

What must hold: every name ``calculator.costs`` lists is reachable from it, and is the very object the submodule
that defines it holds, whether it was imported at once (the declarations) or on first use (the engine); a name
the package does not list is an AttributeError, as for any module.
"""
import importlib

from calculator import costs, views


def test_every_listed_name_is_the_defining_modules_own():
    for name in costs.__all__:
        value = getattr(costs, name)
        home = costs._HOME.get(name)
        if home is None:  # imported at once: from the declarations or the tensor geometry
            assert any(getattr(importlib.import_module(f"calculator.costs.{m}"), name, None) is value
                       for m in ("declare", "tensor")), name
        else:
            assert getattr(importlib.import_module(f"calculator.costs.{home}"), name) is value, name
    assert set(costs._HOME) <= set(costs.__all__)


def test_from_import_and_unknown_names():
    from calculator.costs import Settings, Sim, compute  # noqa: F401 - the engine's names, as the CLI imports them
    assert compute is importlib.import_module("calculator.costs.step").compute
    for module, name in ((costs, "no_such_name"), (views, "no_such_view")):
        try:
            getattr(module, name)
        except AttributeError:
            continue
        raise AssertionError(f"{module.__name__}.{name} should not exist")


def test_views_submodules_on_first_use():
    assert views.costs is importlib.import_module("calculator.views.costs")
    assert views.inference is importlib.import_module("calculator.views.inference")
