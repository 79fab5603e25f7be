"""Entry point for ``python -m calculator`` (run from the repository root, no install step)."""
import sys

from .cli import main

sys.exit(main())
