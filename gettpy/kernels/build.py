"""NVRTC build of rendered kernels: source -> cubin, ptxas report, disk cache, loaded-function cache.

* Compile: `cuda.bindings.nvrtc`, options ``-arch=sm_XX -std=c++17 -Xptxas=-v -I<nvidia-cuda-runtime
  wheel include dir>``; produces a cubin (no GPU or driver needed).
* Disk cache: ``$GETTPY_CACHE_DIR`` (default ``~/.cache/gettpy``) / ``kernels/<key[:2]>/<key>.bin``
  with key = sha256(source + options + NVRTC version + arch). The cache trusts nothing it reads: its
  folders are created 0700 and used only while they are real directories owned by the user and
  writable by no one else; an entry is read only if it is a regular file of the user (opened with
  O_NOFOLLOW | O_NONBLOCK, so a symlink is refused and a FIFO never blocks) of at most MAX_ENTRY_BYTES,
  whose header (magic, sha256 of the payload, JSON metadata) names the entry's full key -- the key and
  its parts: source hash, options, NVRTC version, arch -- so a cubin planted under another key's name is
  refused. Anything else is ignored with one warning and rebuilt. Writes are atomic (a 0600 tmp file +
  os.replace). A cache directory that cannot be written, or is not private, disables the disk cache
  with one warning.
* In-process cache: loaded CuPy functions keyed by (spec, arch, device id).
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import stat
import struct
import sys
import tempfile
import threading
import warnings
from dataclasses import dataclass

from ..errors import KernelError
from .render import render
from .spec import REG_SPLIT_REGS, KernelSpec

DEFAULT_ARCH = "sm_90"


@dataclass(frozen=True, slots=True)
class PtxasReport:
    """What ptxas said about one kernel."""

    registers: int = -1
    stack: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    cmem: int = 0
    #: ptxas serialised the kernel's wgmmas (its note C7515: each waits for the one before, ~5% of the tensor pipe on
    #: a large square f16 GEMM on the H100); a branch, a store or an accumulator write among them makes it do so
    wgmma_serial: bool = False

    @property
    def spills(self) -> int:
        return self.spill_stores + self.spill_loads


@dataclass(frozen=True, slots=True)
class CompiledKernel:
    name: str
    arch: str
    cubin: bytes
    log: str
    report: PtxasReport
    from_cache: bool = False


# ------------------------------------------------------------------------------------------------ NVRTC
def _nvrtc():
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:  # pragma: no cover - depends on environment
        raise KernelError("compiling GETT kernels needs cuda-bindings (pip install 'gettpy[gpu]')") from e
    return nvrtc


def _check(res, what: str):
    err = res[0] if isinstance(res, tuple) else res
    if int(err) != 0:
        raise KernelError(f"NVRTC {what} failed: {err!r}")
    return res[1:] if isinstance(res, tuple) else ()


def nvrtc_version() -> str:
    nvrtc = _nvrtc()
    major, minor = _check(nvrtc.nvrtcVersion(), "version")
    return f"{major}.{minor}"


_INCLUDE: list[str] = []


def include_dir() -> str:
    """The CUDA headers of the nvidia-cuda-runtime wheel (or $GETTPY_CUDA_INCLUDE, or CUDA_PATH)."""
    if _INCLUDE:
        return _INCLUDE[0]
    cands = []
    env = os.environ.get("GETTPY_CUDA_INCLUDE")
    if env:
        cands.append(env)
    for p in sys.path:
        cands += sorted(glob.glob(os.path.join(p, "nvidia", "cu13", "include")))
        cands += sorted(glob.glob(os.path.join(p, "nvidia", "cuda_runtime", "include")))
    for p in (os.environ.get("CUDA_PATH", ""), "/usr/local/cuda"):
        if p:
            cands.append(os.path.join(p, "include"))
    for c in cands:
        if os.path.isfile(os.path.join(c, "cuda_fp16.h")):
            _INCLUDE.append(c)
            return c
    raise KernelError("no CUDA headers (cuda_fp16.h) found: install nvidia-cuda-runtime or set GETTPY_CUDA_INCLUDE")


def normalize_arch(arch: str | int | None) -> str:
    """'sm_90' from 'sm_90', '90', 90, (9, 0) or None (the current device's, else sm_90)."""
    if arch is None:
        try:
            import cupy

            return "sm_" + str(cupy.cuda.Device().compute_capability)
        except Exception:  # noqa: BLE001 - no GPU: compile for the default target
            return DEFAULT_ARCH
    if isinstance(arch, tuple):
        return f"sm_{arch[0]}{arch[1]}"
    a = str(arch)
    if a.startswith("compute_"):
        a = a[len("compute_"):]
    return a if a.startswith("sm_") else "sm_" + a


def options(arch: str) -> list[str]:
    return [f"-arch={arch}", "-std=c++17", "-Xptxas=-v", f"-I{include_dir()}"]


_PTXAS = {
    "registers": re.compile(r"Used (\d+) registers"),
    "stack": re.compile(r"(\d+) bytes stack frame"),
    "spill_stores": re.compile(r"(\d+) bytes spill stores"),
    "spill_loads": re.compile(r"(\d+) bytes spill loads"),
    "cmem": re.compile(r"(\d+) bytes cmem\[0\]"),
}


#: ptxas's note that it serialised the wgmmas ("(C7515) Potential Performance Loss: wgmma.mma_async instructions are
#: serialized due to ...")
_WGMMA_SERIAL = re.compile(r"C7515|wgmma\.mma_async instructions are serialized")


def parse_ptxas(log: str) -> PtxasReport:
    """Registers, stack frame, spill stores/loads, cmem[0] and whether the wgmmas were serialised, from a
    `-Xptxas=-v` log."""
    vals = {}
    for k, rx in _PTXAS.items():
        m = rx.search(log)
        vals[k] = int(m.group(1)) if m else (-1 if k == "registers" else 0)
    return PtxasReport(**vals, wgmma_serial=bool(_WGMMA_SERIAL.search(log)))


def _nvrtc_compile(src: str, name: str, opts: list[str], what: str, size_fn: str, get_fn: str) -> tuple[bytes, str]:
    """One NVRTC compile of `src` with `opts`; returns (the output `get_fn` fetches, log)."""
    nvrtc = _nvrtc()
    (prog,) = _check(nvrtc.nvrtcCreateProgram(src.encode(), f"{name}.cu".encode(), 0, [], []), "create")
    try:
        eopts = [o.encode() for o in opts]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(eopts), eopts)
        (n,) = _check(nvrtc.nvrtcGetProgramLogSize(prog), "log size")
        log = b" " * n
        nvrtc.nvrtcGetProgramLog(prog, log)
        log_s = log.rstrip(b"\x00 ").decode(errors="replace")
        if int(err) != 0:
            raise KernelError(f"NVRTC could not compile {name} for {what}:\n{log_s}")
        (n,) = _check(getattr(nvrtc, size_fn)(prog), size_fn)
        out = b" " * n
        _check(getattr(nvrtc, get_fn)(prog, out), get_fn)
        return bytes(out), log_s
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def compile_source(src: str, name: str, arch: str) -> tuple[bytes, str]:
    """Compile CUDA source with NVRTC to a cubin; returns (cubin, log). Raises KernelError with the log."""
    return _nvrtc_compile(src, name, options(arch), arch, "nvrtcGetCUBINSize", "nvrtcGetCUBIN")


# ------------------------------------------------------------------------------------------------ disk cache
_warned_readonly: set[str] = set()
_warned_entries: set[str] = set()

#: the entry format's magic (its version is the last byte)
ENTRY_MAGIC = b"GETTPYK\x02"
#: the largest cache entry read (bytes): a GETT cubin is tens of kilobytes
MAX_ENTRY_BYTES = 32 << 20


def cache_dir() -> str:
    base = os.environ.get("GETTPY_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "gettpy")
    return os.path.join(base, "kernels")


def _key_parts(src: str, arch: str) -> dict:
    """Everything an entry is compiled from, as its header records it: source hash, options, NVRTC, arch."""
    return {"source_sha256": hashlib.sha256(src.encode()).hexdigest(), "options": options(arch),
            "nvrtc": nvrtc_version(), "arch": arch}


def cache_key(src: str, arch: str) -> str:
    h = hashlib.sha256()
    for part in (src, "\0".join(options(arch)), nvrtc_version(), arch):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _entry_path(key: str) -> str:
    return os.path.join(cache_dir(), key[:2], key + ".bin")


def private_problem(st: os.stat_result, what: str, kind: str = "dir") -> str | None:
    """Why a cache directory (`kind` "dir") or entry ("file") with lstat/fstat result `st` is not private to
    this user, or None: it must be a directory / regular file (no symlink, FIFO or device), owned by the
    current user and writable by no one else."""
    want = stat.S_ISDIR if kind == "dir" else stat.S_ISREG
    if not want(st.st_mode):
        return f"{what} is not a {'directory' if kind == 'dir' else 'regular file'}"
    if st.st_uid != os.geteuid():
        return f"{what} is owned by uid {st.st_uid}, not by this user (uid {os.geteuid()})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{what} is writable by its group or by others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def _private_dir(path: str, create: bool) -> str | None:
    """Why `path` (the cache root or one of its subfolders) cannot hold trusted entries, or None. Created
    0700 where missing (and `create`); checked without following a symlink."""
    if create:
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                pass
    st = os.lstat(path)
    return private_problem(st, f"cache directory {path}")


def _warn_entry(path: str, why: str) -> None:
    """One warning per cache folder and process for the entries that are ignored and rebuilt (a cache of
    another format would otherwise warn once per kernel)."""
    root = os.path.dirname(os.path.dirname(path))
    if root not in _warned_entries:
        _warned_entries.add(root)
        warnings.warn(f"gettpy: ignoring kernel cache entry {path} ({why}); the kernel is rebuilt, and so is any "
                      f"other entry of {root} that fails these checks (without a further warning)",
                      RuntimeWarning, stacklevel=4)


def _read_entry(path: str, parts: dict | None = None, key: str | None = None) -> tuple[bytes, dict] | None:
    """The (cubin, metadata) of the entry at `path`, or None (a miss). Only a regular file owned by this user
    in private directories is read (opened without following symlinks, never blocking on a FIFO), at most
    MAX_ENTRY_BYTES, whose header names exactly `key` and `parts` (source hash, options, NVRTC, arch) and
    whose payload matches its hash; anything else is ignored with one warning."""
    folder = os.path.dirname(path)
    try:
        for d in (os.path.dirname(folder), folder):
            why = _private_dir(d, create=False)
            if why is not None:
                _warn_entry(path, why)
                return None
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (FileNotFoundError, NotADirectoryError):  # (no entry: a plain miss)
        return None
    except OSError as e:  # (ELOOP: a symlink; permissions)
        _warn_entry(path, f"cannot open it safely: {e.strerror or e}")
        return None
    try:
        why = private_problem(os.fstat(fd), "the entry", "file")
        if why is None and os.fstat(fd).st_size > MAX_ENTRY_BYTES:
            why = f"larger than {MAX_ENTRY_BYTES} bytes"
        if why is not None:
            _warn_entry(path, why)
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            blob = f.read(MAX_ENTRY_BYTES + 1)
    except OSError as e:
        _warn_entry(path, f"unreadable: {e}")
        return None
    finally:
        os.close(fd)
    got = _parse_entry(blob, parts, key)
    if isinstance(got, str):
        _warn_entry(path, got)
        return None
    return got


def _parse_entry(blob: bytes, parts: dict | None, key: str | None) -> tuple[bytes, dict] | str:
    """(cubin, metadata) of an entry's bytes, or why they are not a valid entry for `key` and `parts`.

    Layout: ENTRY_MAGIC, sha256(payload) (32 bytes), payload = 4-byte little-endian JSON length, JSON
    metadata ({"key", "source_sha256", "options", "nvrtc", "arch", "name", "log"}), cubin."""
    head = len(ENTRY_MAGIC) + 32
    if len(blob) > MAX_ENTRY_BYTES:
        return f"larger than {MAX_ENTRY_BYTES} bytes"
    if len(blob) < head + 4 or not blob.startswith(ENTRY_MAGIC):
        return "not a gettpy kernel cache entry (truncated or of another format)"
    payload = blob[head:]
    if hashlib.sha256(payload).digest() != blob[len(ENTRY_MAGIC):head]:
        return "its hash does not match its contents (truncated or modified)"
    (n,) = struct.unpack("<I", payload[:4])
    try:
        meta = json.loads(payload[4:4 + n].decode())
    except (ValueError, UnicodeDecodeError, RecursionError):
        return "its metadata is not JSON"
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not isinstance(meta.get("log", ""), str):
        return "its metadata is malformed"
    if key is not None and meta.get("key") != key:
        return "its header names another kernel's key"
    for k, v in (parts or {}).items():
        if meta.get(k) != v:
            return f"its header's {k} differs from this build's"
    cubin = payload[4 + n:]
    return (cubin, meta) if cubin else "it holds no cubin"


def _write_entry(path: str, cubin: bytes, meta: dict) -> None:
    js = json.dumps(meta).encode()
    payload = struct.pack("<I", len(js)) + js + cubin
    blob = ENTRY_MAGIC + hashlib.sha256(payload).digest() + payload
    d = os.path.dirname(path)
    root = cache_dir()
    try:
        why = _private_dir(root, create=True) or _private_dir(d, create=True)
        if why is not None:
            if root not in _warned_readonly:
                _warned_readonly.add(root)
                warnings.warn(f"gettpy: kernel cache {root} is not private ({why}); disk caching disabled",
                              RuntimeWarning, stacklevel=3)
            return
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".bin")  # (created 0600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, path)  # (atomic; replaces a planted name, never follows it)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as e:
        if root not in _warned_readonly:
            _warned_readonly.add(root)
            warnings.warn(f"gettpy: kernel cache {root} is not writable ({e}); disk caching disabled",
                          RuntimeWarning, stacklevel=3)


def build_source(src: str, name: str, arch: str | None = None, use_cache: bool = True) -> CompiledKernel:
    """Compile (or fetch from the disk cache) one rendered kernel."""
    arch = normalize_arch(arch)
    key = cache_key(src, arch)
    path = _entry_path(key)
    parts = _key_parts(src, arch) if use_cache else {}
    if use_cache:
        hit = _read_entry(path, parts, key)
        if hit is not None:
            cubin, meta = hit
            if meta.get("name") == name:
                log = meta.get("log", "")
                return CompiledKernel(name, arch, cubin, log, parse_ptxas(log), from_cache=True)
    cubin, log = compile_source(src, name, arch)
    if use_cache:
        _write_entry(path, cubin, {"key": key, **parts, "name": name, "log": log})
    return CompiledKernel(name, arch, cubin, log, parse_ptxas(log))


def spec_arch(spec: KernelSpec, arch: str | None = None) -> str:
    """The architecture `spec` compiles for on `arch`: wgmma tiles need sm_90a (an sm_90 device only), the f64
    tensor-core tiles of f32 inputs (KernelSpec.tf32 = 2) sm_90 or newer."""
    arch = normalize_arch(arch)
    if spec.tf32 == 2 and int(re.match(r"sm_(\d+)", arch).group(1)) < 90:
        raise KernelError(f"tile {spec.tile}: f32 inputs on an mma tile run on the f64 tensor cores "
                          f"(mma.m16n8k8.f64), which need sm_90 or newer, not {arch}: give a simt tile")
    if spec.tile.wgmma:
        if arch not in ("sm_90", "sm_90a"):
            raise KernelError(f"tile {spec.tile}: wgmma kernels run on sm_90 devices only, not {arch}")
        return "sm_90a"
    return arch


def build(spec: KernelSpec, arch: str | None = None, use_cache: bool = True) -> CompiledKernel:
    """Render and compile `spec` for `arch` (default: the current device's, else sm_90).

    A tile whose warpgroups trade registers (TileConfig.reg_split) must launch with enough of them for
    setmaxnreg to grant the computing warpgroups theirs; with fewer it would wait forever, so such a
    kernel is refused here."""
    src, name = render(spec)
    k = build_source(src, name, spec_arch(spec, arch), use_cache)
    if spec.tile.reg_split and k.report.registers > 0:  # (-1: ptxas said nothing)
        load, compute = REG_SPLIT_REGS
        if k.report.registers * spec.tile.threads < 128 * load + (spec.tile.threads - 128) * compute:
            raise KernelError(f"kernel {name} ({spec.tile}): ptxas gave it {k.report.registers} registers a thread, "
                              f"too few for its warpgroups' setmaxnreg to {load} / {compute}")
    return k


def ptx(spec: KernelSpec, arch: str | None = None) -> str:
    """The PTX NVRTC makes of `spec`'s kernel for the virtual architecture of spec_arch(spec, arch) (sm_90a ->
    compute_90a): which instructions the kernel keeps after its compile-time branches, for tests and inspection
    (not cached)."""
    src, name = render(spec)
    real = spec_arch(spec, arch)
    virt = "compute_" + real[len("sm_"):]
    opts = [f"-arch={virt}"] + [o for o in options(real)[1:] if not o.startswith("-Xptxas")]
    out, _ = _nvrtc_compile(src, name, opts, virt, "nvrtcGetPTXSize", "nvrtcGetPTX")
    return out.rstrip(b"\x00").decode()


def prebuild(specs, arch: str | None = None, workers: int | None = None) -> None:
    """Compile many specs into the disk cache in parallel threads (NVRTC releases the GIL)."""
    arch = normalize_arch(arch)
    specs = list(dict.fromkeys(specs))
    if not specs:
        return
    workers = workers or min(len(specs), os.cpu_count() or 1)
    if workers <= 1:
        for s in specs:
            build(s, arch)
        return
    import concurrent.futures as cf

    with cf.ThreadPoolExecutor(workers) as ex:
        list(ex.map(lambda s: build(s, arch), specs))


# ------------------------------------------------------------------------------------------------ loaded functions
_FUNCS: dict = {}
_LOCK = threading.Lock()
_MAX_DYN_SMEM_ATTR = 8  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
_DEFAULT_SMEM = 48 * 1024


def _loaded(key, compile_fn, prepare=None):
    """The loaded CuPy function of `key` (cached in-process, the module kept alive with it): on a miss,
    `compile_fn()`'s CompiledKernel loaded on the current device, then `prepare(function, kernel)`."""
    import cupy

    hit = _FUNCS.get(key)
    if hit is not None:
        return hit[0]
    with _LOCK:
        hit = _FUNCS.get(key)
        if hit is None:
            k = compile_fn()
            mod = cupy.cuda.function.Module()
            mod.load(k.cubin)
            f = mod.get_function(k.name)
            if prepare is not None:
                prepare(f, k)
            hit = _FUNCS[key] = (f, mod)
        return hit[0]


def load_source(src: str, name: str, smem: int = 0):
    """The loaded CuPy function `name` of a rendered source (the pack, pad and realign copies, the direct and
    long-K kernels) on the current device: compiled by `build_source` for the device's architecture, through the
    disk cache the GETT kernels use; allowed `smem` bytes of dynamic shared memory once, when it is loaded."""
    import cupy

    dev = cupy.cuda.Device()
    return _loaded((src, name, dev.id), lambda: build_source(src, name, "sm_" + str(dev.compute_capability)),
                   lambda f, k: raise_smem(f, smem, k.name))


def get_function(spec: KernelSpec, arch: str | None = None):
    """The loaded CuPy function of `spec` on the current device (cached in-process)."""
    import cupy

    dev = cupy.cuda.Device()
    arch = normalize_arch(arch) if arch is not None else "sm_" + str(dev.compute_capability)

    return _loaded((spec, arch, dev.id), lambda: build(spec, arch), lambda f, k: raise_smem(f, spec.smem_bytes, k.name))


def raise_smem(f, nbytes: int, name: str) -> None:
    """Allow loaded function `f` (kernel `name`) `nbytes` of dynamic shared memory: past the default it needs the
    function's attribute raised."""
    if nbytes > _DEFAULT_SMEM:
        from cupy_backends.cuda.api import driver

        try:
            driver.funcSetAttribute(f.ptr, _MAX_DYN_SMEM_ATTR, nbytes)
        except Exception as e:  # noqa: BLE001
            raise KernelError(f"kernel {name}: cannot raise dynamic shared memory to {nbytes} bytes: {e}") from e
