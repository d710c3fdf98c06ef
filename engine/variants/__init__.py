"""The variant registry: engine id -> rules object."""

from __future__ import annotations

from collections.abc import Collection

from engine.variants.base import Result, ResultKind, Variant
from engine.variants.blocking import Blocking, BlockingExpress
from engine.variants.classic import Classic
from engine.variants.dutch import Dutch
from engine.variants.neverfinishing import NeverFinishing
from engine.variants.pin import Pin, PinMother

VARIANTS: dict[str, Variant] = {
    v.id: v
    for v in (
        Classic(),
        Pin(),
        PinMother(),
        Blocking(),
        BlockingExpress(),
        Dutch(),
        NeverFinishing(),
    )
}


_CONFIGURED: dict[tuple[str, frozenset[str]], Variant] = {}


def get_variant(variant_id: str, options: Collection[str] = ()) -> Variant:
    """The rules of ``variant_id`` with rule ``options`` on; raises KeyError for an unknown id
    and ValueError for an option the variant does not have."""
    if not options:
        return VARIANTS[variant_id]
    key = (variant_id, frozenset(options))
    configured = _CONFIGURED.get(key)
    if configured is None:
        configured = _CONFIGURED[key] = VARIANTS[variant_id].with_options(key[1])
    return configured


__all__ = ["VARIANTS", "Result", "ResultKind", "Variant", "get_variant"]
