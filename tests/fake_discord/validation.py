"""The subset of Discord's request validation that catches real bot bugs early.

Limits follow the API docs; the fake answers with Discord's error shapes (code 50035 "Invalid
Form Body" with a field path, 50006 for an empty message, ...), so discord.py raises the same
HTTPException a production bot would see.
"""

from __future__ import annotations

import re
from typing import Any

from .models import FLAG_COMPONENTS_V2, JSON, iter_components

COMMAND_NAME_RE = re.compile(r"^[-_\w]{1,32}$")
MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_ATTACHMENTS = 10
MAX_CHOICES = 25
MAX_OPTIONS = 25
MAX_COMMANDS = 100


class ApiError(Exception):
    """An error response: HTTP status, Discord JSON error code and message."""

    def __init__(self, status: int, code: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field

    def payload(self) -> JSON:
        data: JSON = {"message": self.message, "code": self.code}
        if self.field is not None:
            errors: JSON = {"_errors": [{"code": "BASE_TYPE_INVALID", "message": self.message}]}
            for part in reversed(self.field.split(".")):
                errors = {part: errors}
            data["errors"] = errors
        return data


def form_error(field: str, message: str) -> ApiError:
    return ApiError(400, 50035, f"Invalid Form Body ({field}: {message})", field)


def _check_len(value: Any, field: str, low: int, high: int) -> None:
    if not isinstance(value, str):
        raise form_error(field, "Must be a string.")
    if not low <= len(value) <= high:
        raise form_error(field, f"Must be between {low} and {high} in length.")


def validate_embeds(embeds: Any) -> None:
    if not isinstance(embeds, list):
        raise form_error("embeds", "Must be an array.")
    if len(embeds) > MAX_EMBEDS:
        raise form_error("embeds", f"Must be {MAX_EMBEDS} or fewer in length.")
    total = 0
    for i, embed in enumerate(embeds):
        if not isinstance(embed, dict):
            raise form_error(f"embeds.{i}", "Must be an object.")
        for key, limit in (("title", 256), ("description", 4096)):
            value = embed.get(key)
            if value is not None:
                _check_len(value, f"embeds.{i}.{key}", 0, limit)
                total += len(value)
        fields = embed.get("fields") or []
        if not isinstance(fields, list) or len(fields) > 25:
            raise form_error(f"embeds.{i}.fields", "Must be 25 or fewer in length.")
        for j, fld in enumerate(fields):
            if not isinstance(fld, dict):
                raise form_error(f"embeds.{i}.fields.{j}", "Must be an object.")
            _check_len(fld.get("name"), f"embeds.{i}.fields.{j}.name", 1, 256)
            _check_len(fld.get("value"), f"embeds.{i}.fields.{j}.value", 1, 1024)
            total += len(fld["name"]) + len(fld["value"])
        footer = embed.get("footer")
        if isinstance(footer, dict) and footer.get("text") is not None:
            _check_len(footer["text"], f"embeds.{i}.footer.text", 0, 2048)
            total += len(footer["text"])
    if total > MAX_EMBED_TOTAL:
        raise form_error("embeds", f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL}")


def validate_components(components: Any, flags: int) -> None:
    if not isinstance(components, list):
        raise form_error("components", "Must be an array.")
    seen: set[str] = set()
    for comp in iter_components(components):
        custom_id = comp.get("custom_id")
        if custom_id is not None:
            _check_len(custom_id, "components.custom_id", 1, 100)
            if custom_id in seen:
                raise form_error("components", "Component custom id cannot be duplicated")
            seen.add(custom_id)
        if comp.get("type") == 2:
            style = comp.get("style")
            if style in (1, 2, 3, 4) and custom_id is None:
                raise form_error("components", "A custom id is required for this button style")
            if style == 5 and not comp.get("url"):
                raise form_error("components", "A url is required for link buttons")
            if comp.get("label") is not None:
                _check_len(comp["label"], "components.label", 0, 80)
    if flags & FLAG_COMPONENTS_V2:
        return
    # Legacy layout: up to 5 action rows of up to 5 buttons or a single select.
    if len(components) > 5:
        raise form_error("components", "Must be 5 or fewer in length.")
    for i, row in enumerate(components):
        if not isinstance(row, dict) or row.get("type") != 1:
            raise form_error(f"components.{i}", "Top-level components must be action rows.")
        children = row.get("components")
        if not isinstance(children, list) or not 1 <= len(children) <= 5:
            raise form_error(f"components.{i}.components", "Must be between 1 and 5 in length.")
        selects = [c for c in children if isinstance(c, dict) and c.get("type") in (3, 5, 6, 7, 8)]
        if selects and len(children) > 1:
            raise form_error(f"components.{i}", "A select menu must be alone in its row.")


MAX_ALT_TEXT = 1024


def validate_allowed_mentions(allowed: Any) -> None:
    """Discord refuses a ``parse`` type that is also given as an explicit list."""
    if allowed is None:
        return
    if not isinstance(allowed, dict):
        raise form_error("allowed_mentions", "Must be an object.")
    parse = allowed.get("parse", [])
    if not isinstance(parse, list) or not set(parse) <= {"users", "roles", "everyone"}:
        raise form_error("allowed_mentions.parse", "Invalid parse type.")
    for kind in ("users", "roles"):
        listed = allowed.get(kind)
        if listed is not None:
            if not isinstance(listed, list) or len(listed) > 100:
                raise form_error(f"allowed_mentions.{kind}", "Must be 100 or fewer in length.")
            if listed and kind in parse:
                raise form_error(
                    "allowed_mentions",
                    f'parse:["{kind}"] and {kind}: [ids...] are mutually exclusive.',
                )


def validate_message(body: JSON, n_files: int, *, creating: bool) -> None:
    """Reject what Discord rejects for create/edit message bodies."""
    content = body.get("content")
    if content is not None:
        if not isinstance(content, str):
            raise form_error("content", "Must be a string.")
        if len(content) > MAX_CONTENT:
            raise form_error("content", f"Must be {MAX_CONTENT} or fewer in length.")
    flags = body.get("flags") or 0
    if not isinstance(flags, int):
        raise form_error("flags", "Must be an integer.")
    if "embeds" in body and body["embeds"] is not None:
        validate_embeds(body["embeds"])
    if "components" in body and body["components"] is not None:
        validate_components(body["components"], flags)
    if flags & FLAG_COMPONENTS_V2 and (content or body.get("embeds")):
        raise form_error("content", "Cannot send content or embeds with IS_COMPONENTS_V2")
    validate_allowed_mentions(body.get("allowed_mentions"))
    attachments = body.get("attachments")
    if attachments is not None and not isinstance(attachments, list):
        raise form_error("attachments", "Must be an array.")
    for i, entry in enumerate(attachments or []):
        description = entry.get("description") if isinstance(entry, dict) else None
        if description is not None and (
            not isinstance(description, str) or len(description) > MAX_ALT_TEXT
        ):
            raise form_error(
                f"attachments.{i}.description", f"Must be {MAX_ALT_TEXT} or fewer in length."
            )
    if n_files > MAX_ATTACHMENTS or len(attachments or []) > MAX_ATTACHMENTS:
        raise form_error("attachments", f"Must be {MAX_ATTACHMENTS} or fewer in length.")
    if creating and not (
        content
        or body.get("embeds")
        or body.get("components")
        or n_files
        or body.get("sticker_ids")
        or body.get("poll")
    ):
        raise ApiError(400, 50006, "Cannot send an empty message")


def validate_choices(choices: Any) -> list[JSON]:
    if not isinstance(choices, list):
        raise form_error("data.choices", "Must be an array.")
    if len(choices) > MAX_CHOICES:
        raise form_error("data.choices", f"Must be {MAX_CHOICES} or fewer in length.")
    for i, choice in enumerate(choices):
        if not isinstance(choice, dict):
            raise form_error(f"data.choices.{i}", "Must be an object.")
        _check_len(choice.get("name"), f"data.choices.{i}.name", 1, 100)
        value = choice.get("value")
        if isinstance(value, str):
            _check_len(value, f"data.choices.{i}.value", 0, 100)
        elif not isinstance(value, int | float) or isinstance(value, bool):
            raise form_error(f"data.choices.{i}.value", "Must be a string or number.")
    return choices


def _validate_options(options: Any, path: str, depth: int) -> None:
    if not isinstance(options, list):
        raise form_error(path, "Must be an array.")
    if len(options) > MAX_OPTIONS:
        raise form_error(path, f"Must be {MAX_OPTIONS} or fewer in length.")
    seen_optional = False
    names: set[str] = set()
    for i, opt in enumerate(options):
        where = f"{path}.{i}"
        if not isinstance(opt, dict):
            raise form_error(where, "Must be an object.")
        name = opt.get("name")
        if not isinstance(name, str) or not COMMAND_NAME_RE.match(name) or name != name.lower():
            raise form_error(f"{where}.name", "Invalid option name (lowercase, 1-32 chars).")
        if name in names:
            raise form_error(f"{where}.name", "Option names must be unique.")
        names.add(name)
        _check_len(opt.get("description"), f"{where}.description", 1, 100)
        opt_type = opt.get("type")
        if not isinstance(opt_type, int) or not 1 <= opt_type <= 11:
            raise form_error(f"{where}.type", "Invalid option type.")
        if opt_type in (1, 2):
            if depth >= 2 or (opt_type == 2 and depth >= 1):
                raise form_error(f"{where}.type", "Sub-commands nest too deeply.")
            _validate_options(opt.get("options") or [], f"{where}.options", depth + 1)
            continue
        if opt.get("required"):
            if seen_optional:
                raise form_error(where, "Required options must be placed before non-required.")
        else:
            seen_optional = True
        choices = opt.get("choices")
        if choices:
            if opt.get("autocomplete"):
                raise form_error(where, "Autocomplete cannot be set with choices.")
            if len(choices) > MAX_CHOICES:
                raise form_error(f"{where}.choices", f"Must be {MAX_CHOICES} or fewer.")


def validate_command(cmd: Any, where: str) -> None:
    if not isinstance(cmd, dict):
        raise form_error(where, "Must be an object.")
    cmd_type = cmd.get("type", 1)
    name = cmd.get("name")
    if cmd_type == 1:
        if not isinstance(name, str) or not COMMAND_NAME_RE.match(name) or name != name.lower():
            raise form_error(f"{where}.name", "Invalid command name (lowercase, 1-32 chars).")
        _check_len(cmd.get("description"), f"{where}.description", 1, 100)
        _validate_options(cmd.get("options") or [], f"{where}.options", 0)
    elif cmd_type in (2, 3):
        _check_len(name, f"{where}.name", 1, 32)
    else:
        raise form_error(f"{where}.type", "Invalid command type.")


def validate_commands(commands: Any) -> list[JSON]:
    if not isinstance(commands, list):
        raise form_error("_", "Must be an array.")
    if len(commands) > MAX_COMMANDS:
        raise form_error("_", f"Must be {MAX_COMMANDS} or fewer in length.")
    seen: set[tuple[int, str]] = set()
    for i, cmd in enumerate(commands):
        validate_command(cmd, str(i))
        key = (cmd.get("type", 1), cmd["name"])
        if key in seen:
            raise form_error(f"{i}.name", "Application command names must be unique")
        seen.add(key)
    return commands
