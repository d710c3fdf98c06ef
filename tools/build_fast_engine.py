"""Builds the compiled engine: engine/'s own sources compiled by mypyc into build/fast-engine/.

Run from anywhere: ``python tools/build_fast_engine.py [--if-possible] [--force]``
(``make fast-engine``). Needs mypyc (it ships with mypy) and setuptools, both in
requirements-build.txt, and a C compiler with this Python's headers. Nothing in engine/
changes: the extension modules go to ``build/fast-engine/engine/``, with a manifest of the
sources they were made from, and ``engine.native`` uses them only while those sources are
unchanged (see there). The Python sources stay the reference; ``BG_PURE_ENGINE=1`` runs them
whatever is built.

``--if-possible`` (``make run``, ``make test``) never fails: without mypyc, setuptools or a C
compiler, with ``BG_PURE_ENGINE`` set, or when the build fails, it says so in one line and
exits 0, and the engine runs as Python; with ``--fail-if-broken`` too (CI), only a missing
tool is forgiven, and a build that fails although the tools are there fails. A build that is up
to date is kept (``--force`` rebuilds). ``--clean`` removes the build.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import native  # noqa: E402  (the package chooses pure here: nothing is built yet)

BUILD = Path(native.BUILD_DIR)
WORK = BUILD.with_name("fast-engine-work")
#: The shared library that holds the compiled code; each module is a small shim importing it.
GROUP = "engine._compiled"


class Unavailable(Exception):
    """The build cannot run on this machine (a missing tool); not an error with --if-possible."""


def check_tools() -> str:
    """The compiler description for the manifest; raises Unavailable naming what is missing."""
    for module in ("mypyc", "setuptools"):
        if importlib.util.find_spec(module) is None:
            raise Unavailable(f"no {module} in {sys.executable} (requirements-build.txt has it)")
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    if not cc or shutil.which(cc[0]) is None:
        raise Unavailable(f"no C compiler ({cc[0] if cc else 'cc'} not found)")
    probe_compiler(cc)
    import mypy.version

    return f"mypyc {mypy.version.__version__}"


def probe_compiler(cc: list[str]) -> None:
    """Compiles a one-line extension source against this Python's headers (well under a
    second), so a compiler without the headers is found before mypyc spends a minute."""
    include = sysconfig.get_paths()["include"]
    WORK.mkdir(parents=True, exist_ok=True)
    source = WORK / "probe.c"
    source.write_text("#include <Python.h>\nint probe(void) { return Py_IsNone(Py_None); }\n")
    done = subprocess.run(
        [*cc, "-c", str(source), "-I", include, "-o", str(WORK / "probe.o")],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["no message"]
        first = next((line for line in lines if "error" in line), lines[0])
        raise Unavailable(f"the C compiler {cc[0]} cannot build against Python.h ({first})")


def compile_into(target: Path) -> None:
    """The compilation itself (run in a child process, whose output goes to a log)."""
    from mypyc.build import mypycify
    from setuptools import Extension, setup

    os.chdir(ROOT)
    sources = native.compiled_sources()
    extensions = mypycify(sources, group_name=GROUP, target_dir=str(WORK / "c"), opt_level="3")
    for path in native.kernel_sources():  # engine/_classic_kernel.c -> engine._classic_kernel
        name = path.removesuffix(".c").replace("/", ".")
        extensions.append(Extension(name, [path], extra_compile_args=["-O2"]))
    setup(
        name="fast-engine",
        ext_modules=extensions,
        packages=[],  # the extension modules only (no package discovery in the checkout)
        py_modules=[],
        script_args=[
            "--quiet",
            "build_ext",
            "--build-lib",
            str(target),
            "--build-temp",
            str(WORK / "obj"),
        ],
    )


def build(compiler: str) -> float:
    """Compiles into a fresh folder, checks it, then puts it in place; returns the seconds."""
    started = time.perf_counter()
    digests = native.source_digests()  # before compiling: an edit meanwhile makes it stale
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    target = WORK / "lib"
    log = WORK / "build.log"
    with log.open("w") as out:
        done = subprocess.run(
            [sys.executable, __file__, "--compile-into", str(target)],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
        )
    if done.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-15:]
        raise RuntimeError("mypyc failed:\n    " + "\n    ".join(tail) + f"\n(full log: {log})")
    (target / "manifest.txt").write_text(native.manifest_text(compiler, digests))
    shutil.rmtree(BUILD, ignore_errors=True)
    target.rename(BUILD)
    # The proof: a fresh interpreter picks the build and lists the opening 6-5 with it.
    probe = (
        "import engine; from engine import legal_plays, get_variant, Roll; "
        "assert engine.native.kind == 'compiled', engine.native.reason; "
        "assert engine.movegen._KERNEL is not None, 'no C kernel'; "
        "p = get_variant('classic').initial_position(); "
        "assert sorted(x.text for x in legal_plays(p, Roll(6, 5)))[0] == '13/2', 'wrong plays'"
    )
    env = {k: v for k, v in os.environ.items() if k != native.PURE_SWITCH}
    check = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if check.returncode != 0:
        shutil.rmtree(BUILD, ignore_errors=True)
        raise RuntimeError(f"the compiled engine does not load:\n{check.stderr.strip()}")
    return time.perf_counter() - started


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--if-possible", action="store_true", help="never fail (make run/test)")
    parser.add_argument(
        "--fail-if-broken",
        action="store_true",
        help="with --if-possible: a build that fails where the tools are present fails (CI)",
    )
    parser.add_argument("--force", action="store_true", help="rebuild even if up to date")
    parser.add_argument("--clean", action="store_true", help="remove the build")
    parser.add_argument("--compile-into", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.compile_into is not None:
        compile_into(args.compile_into)
        return 0
    if args.clean:
        shutil.rmtree(BUILD, ignore_errors=True)
        shutil.rmtree(WORK, ignore_errors=True)
        print(f"fast engine: removed {BUILD.relative_to(ROOT)}")
        return 0
    if args.if_possible and os.environ.get(native.PURE_SWITCH, "") not in ("", "0"):
        print(f"fast engine: not built ({native.PURE_SWITCH} is set); the engine runs as Python")
        return 0
    usable, why = native.check_build()
    if usable and not args.force:
        print(f"fast engine: up to date ({why})")
        return 0
    try:
        compiler = check_tools()
        print(f"fast engine: compiling engine/ with {compiler} (about a minute)...", flush=True)
        seconds = build(compiler)
    except (Unavailable, RuntimeError, OSError) as exc:
        broken = not isinstance(exc, Unavailable)
        if not args.if_possible or (broken and args.fail_if_broken):
            print(f"fast engine: {exc}", file=sys.stderr)
            return 1
        print(f"fast engine: not built, the engine runs as Python ({exc})")
        return 0
    print(f"fast engine: built {BUILD.relative_to(ROOT)} in {seconds:.0f}s; engine runs compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
