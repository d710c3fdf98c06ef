"""Moved to ``workers.process``; kept until every importer has switched."""

from workers.process import bare_main, die_with_parent

__all__ = ["bare_main", "die_with_parent"]
