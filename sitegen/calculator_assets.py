"""MkDocs hook for the in-page calculator's assets (owned by the calculator page)."""
