"""The CLI's transport for :mod:`calculator.hub`: ``urllib`` (standard library), ``HF_ENDPOINT`` and ``HF_TOKEN``.

Kept apart from :mod:`calculator.hub` so the page, which fetches through the browser, neither ships
nor precompiles ``urllib.request`` and ``http.client`` (``sitegen/calculator_assets.py`` ``CLI_ONLY``).

The token goes only to the endpoint's own host: ``urllib`` copies a request's headers to a
redirect's target, and the Hub redirects file reads to a CDN, so ``Authorization`` is sent as an
"unredirected" header and put back by :class:`_Redirect` only when the redirect stays on that host.
``Range`` is a normal header and follows the redirect, as ``huggingface_hub``'s does.
"""
from __future__ import annotations

import os
import socket
import urllib.error
import urllib.request
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

from .errors import CalcError
from .hub import DEFAULT_ENDPOINT, Request, Response, endpoint_of

#: Seconds to wait for the server (``huggingface_hub``'s ``HF_HUB_DOWNLOAD_TIMEOUT`` default is 10).
TIMEOUT = 20.0
USER_AGENT = "bert-params (calculator; +https://github.com/)"


def endpoint_from(option: str | None, environ: Mapping[str, str] | None = None) -> str:
    """``--endpoint``, else ``HF_ENDPOINT``, else huggingface.co (``huggingface_hub.constants.ENDPOINT``)."""
    env = os.environ if environ is None else environ
    return endpoint_of(option or env.get("HF_ENDPOINT") or DEFAULT_ENDPOINT)


def token_from(environ: Mapping[str, str] | None = None) -> str | None:
    """``HF_TOKEN`` (the variable ``huggingface_hub`` reads first), or None."""
    env = os.environ if environ is None else environ
    token = (env.get("HF_TOKEN") or "").strip()
    return token or None


class _Redirect(urllib.request.HTTPRedirectHandler):
    """Follows redirects keeping ``Range``; ``Authorization`` only while the host stays the same."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        token = req.unredirected_hdrs.get("Authorization")
        if new is not None and token and urlsplit(newurl).netloc == urlsplit(req.full_url).netloc:
            new.add_unredirected_header("Authorization", token)
        return new


def transport(endpoint: str, token: str | None = None, timeout: float = TIMEOUT) -> Callable[[Request], Response]:
    """A blocking transport: one GET per :class:`~calculator.hub.Request`, at most ``req.limit`` bytes read."""
    opener = urllib.request.build_opener(_Redirect())
    host = urlsplit(endpoint).netloc

    def send(req: Request) -> Response:
        r = urllib.request.Request(req.url, headers={"User-Agent": USER_AGENT, **req.headers})
        if token and urlsplit(req.url).netloc == host:
            r.add_unredirected_header("Authorization", f"Bearer {token}")
        try:
            with opener.open(r, timeout=timeout) as resp:
                body = resp.read(req.limit)
                return Response(resp.status, _lower(resp.headers), body, resp.geturl())
        except urllib.error.HTTPError as err:  # 4xx/5xx: an answer, read by hub.check_status
            with err:
                return Response(err.code, _lower(err.headers), err.read(65536), err.geturl())
        except (socket.timeout, TimeoutError):
            raise CalcError("hub_unreachable", endpoint=endpoint, reason="timeout", status="", detail=f"{timeout:g}") \
                from None
        except (urllib.error.URLError, OSError, ValueError) as err:
            reason = getattr(err, "reason", err)
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise CalcError("hub_unreachable", endpoint=endpoint, reason="timeout", status="",
                                detail=f"{timeout:g}") from None
            raise CalcError("hub_unreachable", endpoint=endpoint, reason="connection", status="",
                            detail=str(reason)[:120]) from None

    return send


def _lower(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()} if headers is not None else {}
