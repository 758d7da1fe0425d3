"""The persistent tuning database: the best configuration found for a problem on a device.

One JSON file per device (name + compute capability) under ``GETTPY_CACHE_DIR`` (default
``~/.cache/gettpy``)::

    {"format": 1, "device": "NVIDIA H100 80GB HBM3", "cc": "90",
     "entries": {"<problem key>": {"config": {...}, "ms": 0.0123, "when": "2026-11-22T06:00:00"}}}

Writes are atomic (a temporary file in the same folder, then ``os.replace``) and merge with what
another process wrote meanwhile; a corrupt or truncated file is ignored with a warning (and replaced
at the next write); a read-only folder keeps the entries in memory only, with a warning.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
import warnings
from pathlib import Path

FORMAT = 1


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
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return {}
        except OSError as e:
            warnings.warn(f"gettpy: cannot read tuning database {self.path}: {e}", stacklevel=3)
            return {}
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT or not isinstance(data.get("entries"), dict):
                raise ValueError("unknown format")
            return {k: v for k, v in data["entries"].items() if isinstance(v, dict) and "config" in v}
        except (ValueError, AttributeError) as e:
            warnings.warn(f"gettpy: ignoring corrupt tuning database {self.path} ({e}); it will be rewritten",
                          stacklevel=3)
            return {}

    def lookup(self, key: str) -> dict | None:
        """The recorded entry ({"config", "ms", "when"}) for a problem key, or None."""
        return self._entries.get(key)

    def record(self, key: str, config: dict, ms: float) -> None:
        """Store the best configuration of a problem and write the file atomically."""
        entry = {"config": config, "ms": float(ms), "when": time.strftime("%Y-%m-%dT%H:%M:%S")}
        self._entries[key] = entry
        merged = self._read() | self._entries  # keep what other processes wrote meanwhile
        self._entries = merged
        payload = {"format": FORMAT, "device": self.device_name, "cc": self.cc, "entries": merged}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tuning-", suffix=".tmp", dir=self.path.parent)
            with os.fdopen(fd, "w") as f:
                json.dump(payload, f, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError as e:
            warnings.warn(f"gettpy: tuning database {self.path} not written ({e}); results kept in memory only",
                          stacklevel=2)

    def __len__(self) -> int:
        return len(self._entries)
