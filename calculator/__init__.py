"""Exact parameter counts for BERT-family models, derived from the tensors the framework creates.

Layout: ``model`` (the tensor inventory), ``families/`` (what each model_type
builds), ``config``/``errors`` (reading and rejecting input), ``build`` (config
to inventory), ``views``/``charts``/``i18n`` (everything printed), ``cli``.
Standard library only: the same files run in CPython and, in the browser, in Pyodide.
"""
from .build import build
from .errors import CalcError
from .presets import PRESETS

__all__ = ["build", "CalcError", "PRESETS"]
