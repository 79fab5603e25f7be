"""The calculator page's parts: words, state, error placement, the HTML builder, result and form markup, the DOM contract.

:mod:`calculator.api` is the protocol the page's worker calls; it imports these.
"""
