"""Which implementation of the engine runs: its Python sources, or a compiled build of them.

The compiled build (``make fast-engine``, ``tools/build_fast_engine.py``) is the engine's own
source compiled with mypyc into extension modules under ``build/fast-engine/engine/``, with
the hand-written C hot paths (``engine/*.c``, see ``engine.movegen``); the Python sources stay
the reference. ``engine/__init__.py`` calls ``activate`` before importing
anything else: when the build is present and was made from exactly the current sources (a
SHA-256 of each compiled file, recorded in the build's manifest) by this Python (its extension
suffix), the build's folder goes first on the package's ``__path__``, so ``engine.movegen`` and
the others load from there. Otherwise, or with ``BG_PURE_ENGINE=1`` in the environment, nothing
changes and everything runs as Python. ``python -m engine info`` prints the choice and why.

This module is never compiled, and imports nothing from the engine.
"""

from __future__ import annotations

import os
from importlib.machinery import EXTENSION_SUFFIXES

#: Set to 1 (or any non-empty value but 0) to run the pure-Python engine whatever is built.
PURE_SWITCH = "BG_PURE_ENGINE"

#: Files of engine/ that the build leaves as Python: the package itself (it chooses), the
#: command line, this module, the game flow (its tests replace ``legal_plays`` on the module,
#: which compiled callers would not see) and the history parser (mypyc cannot compile it).
NOT_COMPILED = (
    "engine/__init__.py",
    "engine/__main__.py",
    "engine/native.py",
    "engine/game.py",
    "engine/history.py",
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD_DIR = os.path.join(ROOT, "build", "fast-engine")
MANIFEST = os.path.join(BUILD_DIR, "manifest.txt")

#: "compiled" or "pure", and why; set by ``activate``.
kind = "pure"
reason = "not chosen yet"


def compiled_sources(root: str = ROOT) -> list[str]:
    """The files the build compiles: every ``engine/**/*.py`` but ``NOT_COMPILED``, as sorted
    paths relative to ``root`` with ``/`` separators."""
    found = []
    for folder, dirs, files in os.walk(os.path.join(root, "engine")):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for name in files:
            if name.endswith(".py"):
                path = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
                if path not in NOT_COMPILED:
                    found.append(path)
    return sorted(found)


def kernel_sources(root: str = ROOT) -> list[str]:
    """The hand-written C extension modules the build compiles too (``engine/*.c``, each the
    module of its name: ``engine/_classic_kernel.c`` is ``engine._classic_kernel``)."""
    folder = os.path.join(root, "engine")
    return sorted(f"engine/{name}" for name in os.listdir(folder) if name.endswith(".c"))


def source_digests(root: str = ROOT) -> dict[str, str]:
    """SHA-256 (hex) of each compiled source file (Python and C)."""
    import hashlib  # here: only a present build needs it (OpenSSL's import is 3 ms)

    out = {}
    for path in compiled_sources(root) + kernel_sources(root):
        with open(os.path.join(root, path), "rb") as f:
            out[path] = hashlib.sha256(f.read()).hexdigest()
    return out


def manifest_text(compiler: str, digests: dict[str, str]) -> str:
    lines = [
        "# The compiled engine: made by tools/build_fast_engine.py from these sources.",
        f"compiler {compiler}",
        f"suffix {EXTENSION_SUFFIXES[0]}",
        *(f"source {digest} {path}" for path, digest in sorted(digests.items())),
    ]
    return "\n".join(lines) + "\n"


def read_manifest(path: str = MANIFEST) -> tuple[str, str, dict[str, str]] | None:
    """(compiler, extension suffix, digests) from a build's manifest, or None if unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    compiler = suffix = ""
    digests = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "compiler":
            compiler = value
        elif key == "suffix":
            suffix = value
        elif key == "source":
            digest, _, source = value.partition(" ")
            digests[source] = digest
    if not compiler or not suffix or not digests:
        return None
    return compiler, suffix, digests


def check_build(root: str = ROOT, manifest: str = MANIFEST) -> tuple[bool, str]:
    """(usable, what it is or why not) for the compiled build in ``root``."""
    found = read_manifest(manifest)
    if found is None:
        return False, "no compiled build (make fast-engine builds one)"
    compiler, suffix, digests = found
    if suffix != EXTENSION_SUFFIXES[0]:
        return False, f"the compiled build is for another Python ({suffix})"
    current = source_digests(root)
    if digests != current:
        both = digests.keys() | current.keys()
        changed = sorted(p for p in both if digests.get(p) != current.get(p))
        return False, f"the compiled build is out of date ({changed[0]} changed; make fast-engine)"
    return True, f"{compiler}, {os.path.relpath(os.path.dirname(manifest), root)}"


def activate(package_path: list[str]) -> None:
    """Put the compiled build first on ``engine.__path__`` when it can and may be used."""
    global kind, reason
    switch = os.environ.get(PURE_SWITCH, "")
    if switch not in ("", "0"):
        kind, reason = "pure", f"{PURE_SWITCH}={switch}"
        return
    usable, why = check_build()
    if usable:
        package_path.insert(0, os.path.join(BUILD_DIR, "engine"))
        kind, reason = "compiled", why
    else:
        kind, reason = "pure", why


def describe() -> str:
    """One line: which engine runs, and why."""
    name = "compiled (mypyc)" if kind == "compiled" else "pure Python"
    return f"{name}: {reason}"
