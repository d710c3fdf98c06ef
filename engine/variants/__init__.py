"""The variant registry: engine id -> rules object."""

from __future__ import annotations

from engine.variants.base import Result, Variant
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


def get_variant(variant_id: str) -> Variant:
    """The rules of ``variant_id``; raises KeyError for an unknown id."""
    return VARIANTS[variant_id]


__all__ = ["VARIANTS", "Result", "Variant", "get_variant"]
