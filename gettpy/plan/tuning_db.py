"""The persistent tuning database: the best configuration found for a problem on a device.

One JSON file per device (name + compute capability) under ``GETTPY_CACHE_DIR`` (default
``~/.cache/gettpy``)::

    {"format": 1, "device": "NVIDIA H100 80GB HBM3", "cc": "90",
     "entries": {"<problem key>": {"config": {...}, "ms": 0.0123, "when": "2026-11-22T06:00:00"}}}

Writes are atomic (a temporary file in the same folder, then ``os.replace``) and merge with what
another process wrote meanwhile; a read-only folder keeps the entries in memory only, with a warning.

Reading trusts nothing: the file is opened without following a symlink and without blocking (a FIFO),
read only if it is a regular file of at most MAX_DB_BYTES, decoded as UTF-8 and parsed as JSON (deep
nesting, which the parser meets as a RecursionError, refused); a file that fails any of these is ignored
with one warning (and replaced at the next write). It is parsed once per process and again only when it
changes (device, inode, size or modification time), so planning misses do not re-read it. Each entry is
still checked against the problem it is used for before use (`plan.cache`, `plan.tuner.check_candidate`).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import tempfile
import threading
import time
import warnings
from pathlib import Path

FORMAT = 1
#: the largest tuning database read (bytes)
MAX_DB_BYTES = 256 << 20

#: parsed files: path -> ((device, inode, size, mtime_ns), entries)
_PARSED: dict[str, tuple[tuple, dict]] = {}
#: (path, file signature, reason) already warned about
_WARNED: set = set()
#: serialises the read-merge-replace of `TuningDB.record` between this process's threads
_WRITE_LOCK = threading.Lock()


@contextlib.contextmanager
def _file_lock(path: Path):
    """An exclusive advisory lock on `path`'s lock file (``<path>.lock``) for the read-merge-replace of `record`,
    between processes, where the platform has fcntl (else nothing: the threads' lock still holds)."""
    try:
        import fcntl
    except ImportError:  # (not POSIX)
        yield
        return
    with open(path.with_name(path.name + ".lock"), "a") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def cache_dir() -> Path:
    """GETTPY_CACHE_DIR, or ~/.cache/gettpy (XDG_CACHE_HOME honoured)."""
    env = os.environ.get("GETTPY_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gettpy"


def device_identity(backend: str) -> tuple[str, str]:
    """(device name, compute capability) of the backend's device ('cpu', '0' for the CPU executor)."""
    if backend != "cupy":
        return "cpu", "0"
    import cupy

    dev = cupy.cuda.Device()
    name = cupy.cuda.runtime.getDeviceProperties(dev.id)["name"]
    return (name.decode() if isinstance(name, bytes) else str(name)), str(dev.compute_capability)


def problem_key(problem) -> str:
    """Stable text key of a problem (its canonical form's repr, hashed)."""
    canon = problem.canonical() if hasattr(problem, "canonical") else problem
    return hashlib.sha256(repr(canon).encode()).hexdigest()[:32]


class TuningDB:
    """Tuning results of one device. `lookup` and `record` are the whole interface."""

    def __init__(self, device_name: str, cc: str, directory: Path | None = None):
        self.device_name, self.cc = device_name, str(cc)
        slug = re.sub(r"[^A-Za-z0-9]+", "-", device_name).strip("-").lower() or "device"
        self.path = (directory or cache_dir()) / f"tuning-{slug}-sm{self.cc}.json"
        self._entries: dict[str, dict] = self._read()

    def _read(self) -> dict[str, dict]:
        """The file's entries ({} when there is none or it is not trusted), parsed once per version."""
        path = str(self.path)
        try:
            st = os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return {}
        except OSError as e:
            return self._ignore((), f"cannot read it: {e}", {})
        sig = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)
        hit = _PARSED.get(path)
        if hit is not None and hit[0] == sig:
            return hit[1]  # (shared between instances: `record` copies before it changes one)
        entries = self._parse_file(path, st, sig)
        _PARSED[path] = (sig, entries)
        return entries

    def _ignore(self, sig: tuple, why: str, result: dict) -> dict:
        if (str(self.path), sig, why) not in _WARNED:
            _WARNED.add((str(self.path), sig, why))
            warnings.warn(f"gettpy: ignoring corrupt tuning database {self.path} ({why}); it will be rewritten",
                          stacklevel=4)
        return result

    def _parse_file(self, path: str, st: os.stat_result, sig: tuple) -> dict[str, dict]:
        if not stat.S_ISREG(st.st_mode):
            return self._ignore(sig, "not a regular file (a symlink, FIFO or device)", {})
        if st.st_size > MAX_DB_BYTES:
            return self._ignore(sig, f"larger than {MAX_DB_BYTES} bytes", {})
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return {}
        except OSError as e:
            return self._ignore(sig, f"cannot open it safely: {e.strerror or e}", {})
        try:
            fst = os.fstat(fd)
            if not stat.S_ISREG(fst.st_mode):
                return self._ignore(sig, "not a regular file (a symlink, FIFO or device)", {})
            with os.fdopen(fd, "rb", closefd=False) as f:
                raw = f.read(MAX_DB_BYTES + 1)
        except OSError as e:
            return self._ignore(sig, f"cannot read it: {e}", {})
        finally:
            os.close(fd)
        if len(raw) > MAX_DB_BYTES:
            return self._ignore(sig, f"larger than {MAX_DB_BYTES} bytes", {})
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return self._ignore(sig, f"not UTF-8 text: {e.reason} at byte {e.start}", {})
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), dict):
                raise ValueError("unknown format")
        except RecursionError:  # (json.loads recurses once per level of nesting)
            return self._ignore(sig, "JSON nested too deeply", {})
        except ValueError as e:
            return self._ignore(sig, str(e)[:200], {})
        return {k: v for k, v in data["entries"].items()
                if isinstance(k, str) and isinstance(v, dict) and isinstance(v.get("config"), dict)}

    def lookup(self, key: str) -> dict | None:
        """The recorded entry ({"config", "ms", "when"}) for a problem key, or None."""
        return self._entries.get(key)

    def record(self, key: str, config: dict, ms: float) -> None:
        """Store the best configuration of a problem and write the file atomically."""
        entry = {"config": config, "ms": float(ms), "when": time.strftime("%Y-%m-%dT%H:%M:%S")}
        self._entries = {**self._entries, key: entry}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with _WRITE_LOCK, _file_lock(self.path):  # (read, merge and replace as one step: threads and processes)
                merged = self._read() | self._entries  # keep what other threads and processes wrote meanwhile
                self._entries = merged
                payload = {"format": FORMAT, "device": self.device_name, "cc": self.cc, "entries": merged}
                fd, tmp = tempfile.mkstemp(prefix=".tuning-", suffix=".tmp", dir=self.path.parent)
                with os.fdopen(fd, "w") as f:
                    json.dump(payload, f, indent=1, sort_keys=True)
                os.replace(tmp, self.path)
        except OSError as e:
            warnings.warn(f"gettpy: tuning database {self.path} not written ({e}); results kept in memory only",
                          stacklevel=2)

    def __len__(self) -> int:
        return len(self._entries)

