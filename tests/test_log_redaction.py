"""Every log record is redacted: payloads, URLs, headers and tracebacks."""

from __future__ import annotations

import io
import logging

from app.logs import LOG_FORMAT, RedactingFormatter

BOT_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GAbcDe.abcdefghijklmnopqrstuvwxyz0123"
INTERACTION_TOKEN = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5OmFiY2RlZmdoaWprbG1ub3A"


def _logged(emit: object) -> str:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter(LOG_FORMAT, ("configured-secret",)))
    logger = logging.getLogger("redaction-test")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        assert callable(emit)
        emit(logger)
    finally:
        logger.removeHandler(handler)
    return stream.getvalue()


def test_gateway_payload_and_webhook_urls_are_redacted() -> None:
    payload = {"t": "INTERACTION_CREATE", "d": {"id": "1", "token": INTERACTION_TOKEN}}
    text = _logged(
        lambda log: (
            log.debug("For Shard ID %s: WebSocket Event: %s", None, payload),
            log.debug(
                "Webhook ID %s with %s %s has returned status code %s",
                1,
                "POST",
                f"https://discord.com/api/v10/webhooks/1/{INTERACTION_TOKEN}",
                200,
            ),
            log.debug("POST /api/v10/interactions/5/%s/callback", INTERACTION_TOKEN),
            log.debug('{"token": "%s"}', INTERACTION_TOKEN),
            log.info("headers {'Authorization': 'Bot %s'}", BOT_TOKEN),
            log.info("the configured-secret leaked"),
        )
    )
    assert INTERACTION_TOKEN not in text and BOT_TOKEN not in text
    assert "configured-secret" not in text
    assert text.count("[redacted]") >= 6


def test_traceback_is_redacted() -> None:
    def emit(log: logging.Logger) -> None:
        try:
            raise RuntimeError(f"bad token {BOT_TOKEN}")
        except RuntimeError:
            log.exception("failed")

    text = _logged(emit)
    assert "RuntimeError" in text and BOT_TOKEN not in text
