"""Point discord.py at another Discord API / gateway (a local fake, or REST and gateway proxies).

How discord.py 2.7 finds Discord (read from the installed source, which is authoritative):

* REST: every request, including the interaction webhook traffic of ``discord/webhook/async_.py``
  (``POST /interactions/{id}/{token}/callback``, ``/webhooks/{app}/{token}/messages/@original``,
  followups), builds a ``discord.http.Route`` whose URL is ``Route.BASE + path`` at construction
  time. ``Route.BASE`` is a class attribute (``https://discord.com/api/v10``), so replacing it
  before the first request redirects all REST traffic. ``Webhook.url`` still prints discord.com
  but is informational only. ``Attachment.read()`` uses the attachment's own URL as sent by the
  server, so attachments follow whatever the API answered.
* Gateway: ``Client.connect`` does not call ``GET /gateway``; it opens
  ``DiscordWebSocket.DEFAULT_GATEWAY`` (``wss://gateway.discord.gg/``). ``AutoShardedClient``
  calls ``GET /gateway/bot`` (which goes through ``Route.BASE``) and uses the returned URL. After
  READY the socket remembers ``resume_gateway_url`` in ``DiscordWebSocket.gateway`` and reconnects
  there; an INVALID_SESSION resets it to ``DEFAULT_GATEWAY``. We therefore replace
  ``DEFAULT_GATEWAY`` and install a class-level property for ``gateway`` that always answers the
  override, so a proxy is never bypassed by Discord's own resume URL.
* The query string is rebuilt by discord.py with ``URL.with_query(v=10, encoding='json',
  compress='zlib-stream')`` (``zstd-stream`` when ``zstandard`` is importable), so any query in
  ``gateway_url`` is dropped while its path is kept. Transport compression is on by default:
  frames come back as binary zlib-stream chunks, each message ending with the Z_SYNC_FLUSH suffix
  ``00 00 ff ff``; TEXT frames are parsed as plain JSON whatever was asked.
* CDN assets (avatars) use ``discord.asset.Asset.BASE``; ``cdn_base`` redirects those too.

The changes are process-global class attributes: use :func:`endpoint_overrides` (a context
manager) or :func:`reset_endpoint_overrides` to put the originals back.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import yarl
from discord.asset import Asset
from discord.gateway import DiscordWebSocket
from discord.http import Route

__all__ = [
    "ENV_API_BASE",
    "ENV_CDN_BASE",
    "ENV_GATEWAY_URL",
    "apply_endpoint_overrides",
    "endpoint_overrides",
    "overrides_from_env",
    "reset_endpoint_overrides",
]

ENV_API_BASE = "DISCORD_API_BASE"
ENV_GATEWAY_URL = "DISCORD_GATEWAY_URL"
ENV_CDN_BASE = "DISCORD_CDN_BASE"

_ORIGINAL_API_BASE: str = Route.BASE
_ORIGINAL_GATEWAY: yarl.URL = DiscordWebSocket.DEFAULT_GATEWAY
_ORIGINAL_CDN_BASE: str = Asset.BASE


class _PinnedGateway:
    """Data descriptor replacing ``DiscordWebSocket.gateway`` while a gateway override is active.

    Reads always give the override; writes (initial URL, READY's resume_gateway_url) are kept on
    the instance only for debugging.
    """

    def __init__(self, url: yarl.URL) -> None:
        self.url = url

    def __get__(self, obj: object, objtype: type | None = None) -> yarl.URL:
        return self.url

    def __set__(self, obj: object, value: Any) -> None:
        obj.__dict__["_endpoint_reported_gateway"] = value


def _http_base(value: str) -> str:
    url = yarl.URL(value)
    if url.scheme not in ("http", "https") or not url.host:
        raise ValueError(f"API base must be an absolute http(s) URL, got {value!r}")
    return value.rstrip("/")


def _ws_url(value: str) -> yarl.URL:
    url = yarl.URL(value)
    if url.scheme not in ("ws", "wss") or not url.host:
        raise ValueError(f"gateway URL must be an absolute ws(s) URL, got {value!r}")
    return url


def apply_endpoint_overrides(
    api_base: str | None, gateway_url: str | None, *, cdn_base: str | None = None
) -> None:
    """Redirect discord.py's REST traffic to ``api_base`` and its gateway to ``gateway_url``.

    ``api_base`` is a full base URL including the version, e.g. ``http://127.0.0.1:8080/api/v10``.
    ``gateway_url`` is a ws(s) URL; discord.py appends its own ``?v=10&encoding=json&compress=...``.
    ``None`` leaves that endpoint as it is. Raises ValueError on a malformed URL (a config error).
    """
    # Validate everything before touching any global so a bad value changes nothing.
    new_api = _http_base(api_base) if api_base is not None else None
    new_gateway = _ws_url(gateway_url) if gateway_url is not None else None
    new_cdn = _http_base(cdn_base) if cdn_base is not None else None
    if new_api is not None:
        Route.BASE = new_api
    if new_gateway is not None:
        DiscordWebSocket.DEFAULT_GATEWAY = new_gateway
        # setattr: the attribute only exists as a TYPE_CHECKING annotation on the class.
        setattr(DiscordWebSocket, "gateway", _PinnedGateway(new_gateway))  # noqa: B010
    if new_cdn is not None:
        Asset.BASE = new_cdn


def reset_endpoint_overrides() -> None:
    """Restore discord.py's built-in endpoints (discord.com, gateway.discord.gg, the CDN)."""
    Route.BASE = _ORIGINAL_API_BASE
    DiscordWebSocket.DEFAULT_GATEWAY = _ORIGINAL_GATEWAY
    if isinstance(DiscordWebSocket.__dict__.get("gateway"), _PinnedGateway):
        delattr(DiscordWebSocket, "gateway")
    Asset.BASE = _ORIGINAL_CDN_BASE


@contextmanager
def endpoint_overrides(
    api_base: str | None, gateway_url: str | None, *, cdn_base: str | None = None
) -> Iterator[None]:
    """Apply the overrides for the duration of a ``with`` block, then restore the previous state."""
    saved_api = Route.BASE
    saved_gateway = DiscordWebSocket.DEFAULT_GATEWAY
    saved_pin = DiscordWebSocket.__dict__.get("gateway")
    saved_cdn = Asset.BASE
    apply_endpoint_overrides(api_base, gateway_url, cdn_base=cdn_base)
    try:
        yield
    finally:
        Route.BASE = saved_api
        DiscordWebSocket.DEFAULT_GATEWAY = saved_gateway
        if saved_pin is None:
            if "gateway" in DiscordWebSocket.__dict__:
                delattr(DiscordWebSocket, "gateway")
        else:
            setattr(DiscordWebSocket, "gateway", saved_pin)  # noqa: B010
        Asset.BASE = saved_cdn


def overrides_from_env(env: Mapping[str, str]) -> tuple[str | None, str | None, str | None]:
    """Read (api_base, gateway_url, cdn_base) from DISCORD_API_BASE / _GATEWAY_URL / _CDN_BASE.

    Empty values count as unset so a blank line in a .env file keeps the real Discord.
    """
    return (
        env.get(ENV_API_BASE) or None,
        env.get(ENV_GATEWAY_URL) or None,
        env.get(ENV_CDN_BASE) or None,
    )
