"""Site glue for MkDocs: hooks listed under ``hooks:`` in mkdocs.yml.

``macros.py`` renders every page as a Jinja2 template whose context
(``context.py``) is made of views of ``calculator/``, so no number on the site
is typed by hand. ``calculator_assets.py`` belongs to the calculator page.
"""
