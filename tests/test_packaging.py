"""Packaging: licence files, third-party notices complete, the Dockerfile's promises."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _locked(lock: str) -> list[str]:
    names = []
    for line in (ROOT / lock).read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9._-]+)==", line)
        if match:
            names.append(match.group(1).lower())
    return names


def test_mit_licence() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_every_runtime_package_has_a_notice() -> None:
    notices = (ROOT / "THIRD_PARTY_NOTICES.md").read_text().lower()
    rows = set(re.findall(r"^\| ([a-z0-9._-]+) \|", notices, flags=re.MULTILINE))
    locked = _locked("requirements.txt")
    assert locked, "the runtime lock lists no packages"
    missing = [name for name in locked if name not in rows]
    assert not missing, f"add these to THIRD_PARTY_NOTICES.md: {missing}"


def test_bundled_fonts_have_their_licence() -> None:
    fonts = sorted((ROOT / "render" / "fonts").glob("*.ttf"))
    assert fonts
    assert (ROOT / "render" / "fonts" / "LICENSE-DejaVu.txt").is_file()
    notices = (ROOT / "THIRD_PARTY_NOTICES.md").read_text()
    for font in fonts:
        assert font.name in notices


def test_dockerfile_is_multi_stage_locked_unprivileged_with_healthcheck() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", text, flags=re.MULTILINE)) >= 2
    assert re.search(r"pip install --require-hashes -r \S*requirements\.txt", text)
    assert "COPY --from=build" in text
    user = text.index("USER bot")
    assert user < text.index("CMD ")
    assert re.search(r"^HEALTHCHECK .*\n?.*health\.py", text, flags=re.MULTILINE)
    assert "HEALTH_FILE=" in text
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".env" in ignored and ".git" in ignored
