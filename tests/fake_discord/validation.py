"""The subset of Discord's request validation that catches real bot bugs early.

Limits follow the API docs; the fake answers with Discord's error shapes (code 50035 "Invalid
Form Body" with a field path, 50006 for an empty message, ...), so discord.py raises the same
HTTPException a production bot would see.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from .models import FLAG_COMPONENTS_V2, JSON, FakeAttachment, iter_components

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
        validate_layout(components)
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

# Components V2 (https://discord.com/developers/docs/components/reference).
ACTION_ROW, BUTTON, SECTION, TEXT_DISPLAY, THUMBNAIL, MEDIA_GALLERY, FILE, SEPARATOR = (
    1,
    2,
    9,
    10,
    11,
    12,
    13,
    14,
)
CONTAINER = 17
SELECTS = (3, 5, 6, 7, 8)
#: What a V2 message may hold at its top level, and what a container may hold.
LAYOUT_TOP = {ACTION_ROW, SECTION, TEXT_DISPLAY, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER}
IN_CONTAINER = LAYOUT_TOP - {CONTAINER}
MAX_LAYOUT_COMPONENTS = 40
MAX_LAYOUT_TEXT = 4000
MAX_GALLERY_ITEMS = 10


def _action_row(row: JSON, where: str) -> None:
    children = row.get("components")
    if not isinstance(children, list) or not 1 <= len(children) <= 5:
        raise form_error(f"{where}.components", "Must be between 1 and 5 in length.")
    for j, child in enumerate(children):
        kind = child.get("type") if isinstance(child, dict) else None
        if kind != BUTTON and kind not in SELECTS:
            raise form_error(f"{where}.components.{j}", "Action rows hold buttons or a select.")
        if kind in SELECTS and len(children) > 1:
            raise form_error(where, "A select menu must be alone in its row.")


def _media_url(media: Any, where: str) -> None:
    if not isinstance(media, dict) or not isinstance(media.get("url"), str) or not media["url"]:
        raise form_error(f"{where}.url", "This field is required")


def _layout_component(comp: Any, where: str, allowed: set[int]) -> int:
    """Check one component of a V2 layout; returns its text display characters."""
    if not isinstance(comp, dict):
        raise form_error(where, "Must be an object.")
    kind = comp.get("type")
    if kind not in allowed:
        raise form_error(f"{where}.type", f"Component type {kind} is not allowed here.")
    if "id" in comp and not isinstance(comp["id"], int):
        raise form_error(f"{where}.id", "Must be an integer.")
    text = 0
    if kind == ACTION_ROW:
        _action_row(comp, where)
    elif kind == TEXT_DISPLAY:
        _check_len(comp.get("content"), f"{where}.content", 1, MAX_LAYOUT_TEXT)
        text = len(comp["content"])
    elif kind == MEDIA_GALLERY:
        items = comp.get("items")
        if not isinstance(items, list) or not 1 <= len(items) <= MAX_GALLERY_ITEMS:
            raise form_error(f"{where}.items", f"Must be between 1 and {MAX_GALLERY_ITEMS}.")
        for j, item in enumerate(items):
            if not isinstance(item, dict):
                raise form_error(f"{where}.items.{j}", "Must be an object.")
            _media_url(item.get("media"), f"{where}.items.{j}.media")
            if item.get("description") is not None:
                _check_len(item["description"], f"{where}.items.{j}.description", 1, 1024)
    elif kind == SEPARATOR:
        if comp.get("spacing", 1) not in (1, 2):
            raise form_error(f"{where}.spacing", "Must be 1 (small) or 2 (large).")
        if not isinstance(comp.get("divider", True), bool):
            raise form_error(f"{where}.divider", "Must be a boolean.")
    elif kind == FILE:
        media = comp.get("file")
        _media_url(media, f"{where}.file")
        if not str(media["url"]).startswith("attachment://"):
            raise form_error(f"{where}.file.url", "Must be an attachment:// reference.")
    elif kind == SECTION:
        texts = comp.get("components")
        if not isinstance(texts, list) or not 1 <= len(texts) <= 3:
            raise form_error(f"{where}.components", "Must be between 1 and 3 in length.")
        for j, child in enumerate(texts):
            text += _layout_component(child, f"{where}.components.{j}", {TEXT_DISPLAY})
        accessory = comp.get("accessory")
        if not isinstance(accessory, dict) or accessory.get("type") not in (BUTTON, THUMBNAIL):
            raise form_error(f"{where}.accessory", "A section needs a button or a thumbnail.")
        if accessory["type"] == THUMBNAIL:
            _media_url(accessory.get("media"), f"{where}.accessory.media")
    elif kind == CONTAINER:
        colour = comp.get("accent_color")
        if colour is not None and (
            not isinstance(colour, int) or isinstance(colour, bool) or not 0 <= colour <= 0xFFFFFF
        ):
            raise form_error(f"{where}.accent_color", "Must be a colour between 0 and 0xFFFFFF.")
        children = comp.get("components")
        if not isinstance(children, list) or not children:
            raise form_error(f"{where}.components", "Must be at least 1 in length.")
        for j, child in enumerate(children):
            text += _layout_component(child, f"{where}.components.{j}", IN_CONTAINER)
    return text


def validate_layout(components: list[Any]) -> None:
    """A message with the IS_COMPONENTS_V2 flag: its components are its whole body (layout
    components, each where it may be), at most 40 of them counting nested ones, and at most
    4000 characters over all its text displays."""
    if len(list(iter_components(components))) > MAX_LAYOUT_COMPONENTS:
        raise form_error("components", f"Must be {MAX_LAYOUT_COMPONENTS} or fewer in total.")
    text = 0
    for i, comp in enumerate(components):
        text += _layout_component(comp, f"components.{i}", LAYOUT_TOP)
    if text > MAX_LAYOUT_TEXT:
        raise form_error(
            "components", f"Text displays must be {MAX_LAYOUT_TEXT} or fewer characters in total."
        )


def resolve_layout(components: list[JSON], attachments: list[FakeAttachment]) -> list[JSON]:
    """The layout as Discord stores and returns it: every component numbered (``id``, in
    order, where the bot gave none) and every ``attachment://name`` media resolved to that
    attachment of the message (its URL, size and type, ``attachment_id``). A reference to no
    attachment of the message is refused: it would show as a broken picture."""
    stored = copy.deepcopy(components)
    every = list(iter_components(stored))
    used = {c["id"] for c in every if isinstance(c.get("id"), int)}
    next_id = 1
    for comp in every:
        if not isinstance(comp.get("id"), int):
            while next_id in used:
                next_id += 1
            comp["id"] = next_id
            used.add(next_id)
        medias = [item.get("media") for item in comp.get("items") or [] if isinstance(item, dict)]
        medias += [comp.get("file"), comp.get("media")]
        for media in medias:
            if isinstance(media, dict) and str(media.get("url", "")).startswith("attachment://"):
                name = media["url"].removeprefix("attachment://")
                found = next((a for a in attachments if a.filename == name), None)
                if found is None:
                    raise form_error("components", f"Unknown attachment {media['url']}")
                media.update(
                    url=found.url,
                    proxy_url=found.url,
                    content_type=found.content_type,
                    attachment_id=str(found.id),
                    **found.dimensions(),
                )
    return stored


def check_layout_message(content: str, embeds: list[JSON], components: list[JSON]) -> None:
    """A V2 message as it would be after a create or an edit: no content, no embeds (a
    message cannot become a layout while it keeps its text), and something to show."""
    if content or embeds:
        raise form_error("content", "Cannot send content or embeds with IS_COMPONENTS_V2")
    if not components:
        raise ApiError(400, 50006, "Cannot send an empty message")


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
