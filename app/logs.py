"""Logging to stderr with every record redacted: the bot token, Discord tokens in general and
interaction tokens never reach a log line, also not through discord.py's own DEBUG payloads.
No Discord here.
"""

from __future__ import annotations

import logging
import re

LOG_FORMAT = "%(asctime)s %(levelname)-8s %(name)s: %(message)s"

# Secrets that must never reach a log: the bot token (known), Discord bot tokens in general,
# and interaction tokens (each can post as the bot for 15 minutes), which discord.py logs at
# DEBUG inside gateway payloads and in webhook URLs.
_TOKEN_PATTERNS = (
    # "token": "..." in a JSON or Python-repr payload.
    (re.compile(r"""(["']token["']\s*:\s*["'])[^"']+"""), r"\1[redacted]"),
    # /webhooks/{application}/{token}, /interactions/{id}/{token}/callback.
    (re.compile(r"(/(?:webhooks|interactions)/\d+/)[^/\s'\"?]+"), r"\1[redacted]"),
    # Authorization: Bot <token>.
    (re.compile(r"(\bBot\s+)[\w.-]{20,}"), r"\1[redacted]"),
    # Anything shaped like a bot token: base64 id . timestamp . HMAC.
    (re.compile(r"\b[\w-]{23,28}\.[\w-]{6,7}\.[\w-]{27,}"), "[redacted]"),
)


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with every known secret and anything shaped like a Discord token removed."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[redacted]")
    for pattern, replacement in _TOKEN_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactingFormatter(logging.Formatter):
    """Redacts the whole formatted record (message, arguments, traceback)."""

    def __init__(self, fmt: str, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(fmt)
        self.secrets = secrets

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record), self.secrets)


def setup_logging(level: str, secrets: tuple[str, ...] = ()) -> None:
    """Log to stderr at ``level``, every record redacted (also discord.py's own)."""
    logging.basicConfig(level=level, format=LOG_FORMAT)
    for handler in logging.getLogger().handlers:
        handler.setFormatter(RedactingFormatter(LOG_FORMAT, secrets))
