"""clmatch: SQL LIKE and approximate contains over Arrow string columns on OpenCL devices
(libclmatch through ctypes).

    import clmatch, pyarrow as pa
    col = pa.array(["special requests", None, "nothing"])
    clmatch.like(col, "%special%requests%")        # pyarrow BooleanArray: [true, false, false]
    clmatch.like(col, "%re%", ids=True)            # numpy int64 row ids: [0, 2]
    clmatch.count(col, ["%special%", "no%"])       # an OR of patterns: 2
    clmatch.contains(col, "speical", 2, ids=True)  # within 2 edits: [0]
    with clmatch.DeviceSet([(0, 0), (1, 0)]) as ds:  # the rows shared out: CPU + GPU
        ds.like(col, "%re%")

A column is anything offering the Arrow PyCapsule interface (__arrow_c_array__ or
__arrow_c_stream__: pyarrow arrays and chunked arrays, Polars series, DuckDB results through
pyarrow), read in place, or a Python sequence of str / bytes (converted by pyarrow).
SQL's NULL rules: a NULL row is selected by neither LIKE nor NOT LIKE, so it is False in the
boolean result (which has no NULLs) and absent from the row ids.
"""
import ctypes
import weakref

import numpy as np
import pyarrow as pa

from . import _lib
from ._arrow import HostChunks
from ._lib import lib

__all__ = ["Error", "Device", "DeviceSet", "Predicate", "ResidentColumn", "devices",
           "default_device", "like", "contains", "count", "version"]


def version():
    """The version of the loaded libclmatch, e.g. "0.1.0"."""
    return lib.clm_version().decode()


class Error(Exception):
    """A libclmatch call failed: status is its CLM_E_* code (negative), function the call,
    detail clm_last_error()'s text (what failed, e.g. the pattern and offset)."""

    def __init__(self, status, function, detail):
        self.status = status
        self.function = function
        self.detail = detail
        text = lib.clm_strerror(status).decode(errors="replace")
        super().__init__("%s: %s (status %d)%s" % (function, text, status,
                                                  ": " + detail if detail else ""))

    @classmethod
    def from_status(cls, status, function):
        # clm_last_error is per thread; ctypes calls run on the caller's thread
        return cls(status, function, lib.clm_last_error().decode(errors="replace"))


def _check(rc, function):
    if rc != _lib.CLM_OK:
        raise Error.from_status(rc, function)


_DEVICE_TYPES = {0: "other", 1: "cpu", 2: "gpu", 3: "accelerator"}


def _info_dict(info):
    return {
        "platform": info.platform_index,
        "device": info.device_index,
        "name": info.name.decode(errors="replace"),
        "platform_name": info.platform_name.decode(errors="replace"),
        "vendor": info.vendor.decode(errors="replace"),
        "version": info.version.decode(errors="replace"),
        "type": _DEVICE_TYPES.get(info.type, "other"),
        "compute_units": info.compute_units,
        "global_mem_bytes": info.global_mem_bytes,
        "max_alloc_bytes": info.max_alloc_bytes,
        "host_unified_memory": bool(info.host_unified_memory),
    }


def devices():
    """Every OpenCL device, as dicts (platform, device: the indices Device takes; name,
    platform_name, vendor, version, type: "gpu", "cpu", ...; memory sizes)."""
    out = ctypes.POINTER(_lib.DeviceInfo)()
    n = ctypes.c_size_t()
    _check(lib.clm_list_devices(0, ctypes.sizeof(_lib.DeviceInfo), ctypes.byref(out),
                                ctypes.byref(n)), "clm_list_devices")
    try:
        return [_info_dict(out[i]) for i in range(n.value)]
    finally:
        lib.clm_free_device_list(out)


def _close_device(handle, children, close=lib.clm_device_close):
    # what was made for the device goes first: clm_device_close requires it
    for fin in list(children):
        fin()
    close(handle)


class _Handle:
    """An object owning library handles, released by close(), its context manager or the
    garbage collector, whichever comes first."""

    def _own(self, free, *args):
        self._fin = weakref.finalize(self, free, *args)
        return self._fin

    def close(self):
        """Release the object's library handles now (later calls do nothing)."""
        self._fin()

    @property
    def closed(self):
        return not self._fin.alive

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class _Owner(_Handle):
    """A device or device set: what is compiled or uploaded for it is freed before it."""

    def _live(self):
        """The handle; ValueError once closed (the handle is freed then)."""
        if self.closed:
            raise ValueError("clmatch: the %s is closed" % self._what)
        return self._handle

    def _adopt(self, fin):
        self._children[:] = [f for f in self._children if f.alive]
        self._children.append(fin)

    def compile(self, pattern, *, escape=None, ilike=False, negate=False):
        """A Predicate for this device or set (see like() for the arguments)."""
        return Predicate(self, pattern, escape=escape, ilike=ilike, negate=negate)

    def like(self, column, pattern, **kw):
        return like(column, pattern, device=self, **kw)

    def contains(self, column, substring, *args, **kw):
        return contains(column, substring, *args, device=self, **kw)

    def count(self, column, pattern, **kw):
        return count(column, pattern, device=self, **kw)


class Device(_Owner):
    """An open OpenCL device. platform, device: indices as devices() lists them; None for
    both: CLMATCH_PLATFORM / CLMATCH_DEVICE when set, else the first GPU, else a CPU."""

    _what = "device"

    def __init__(self, platform=None, device=None):
        handle = ctypes.c_void_p()
        _check(lib.clm_device_open(-1 if platform is None else int(platform),
                                   -1 if device is None else int(device), ctypes.byref(handle)),
               "clm_device_open")
        self._handle = handle
        self._children = []  # finalizers of predicates and columns made for this device
        self._own(_close_device, handle, self._children)
        info = _lib.DeviceInfo()
        _check(lib.clm_device_get_info(handle, ctypes.byref(info), ctypes.sizeof(info)),
               "clm_device_get_info")
        self.info = _info_dict(info)

    def __repr__(self):
        return "<clmatch.Device %d.%d %r%s>" % (self.info["platform"], self.info["device"],
                                               self.info["name"],
                                               " closed" if self.closed else "")

    def upload(self, column, *, pivot=None, self_pivot=None):
        """column copied once to this device: a ResidentColumn for many queries. pivot: None
        (the rows' bytes one after the other) or 4, 8, 16: seed 004's pivoted layout in
        pieces of that many bytes (clm_column_pivot). self_pivot: None or (width, segments,
        seg_bytes): seed 004's self-pivoted layout for long rows (clm_column_self_pivot)."""
        return ResidentColumn(self, column, pivot=pivot, self_pivot=self_pivot)


class DeviceSet(_Owner):
    """Several devices that share a column's rows out (CPU+GPU co-processing): each selects
    one contiguous range of the rows, in proportion to its speed, at the same time, and the
    results are one device's. devices: (platform, device) pairs as devices() lists them;
    speeds: None (the devices' tuning profiles, else equal shares) or one positive number
    per device (bytes per second, or any relative measure). Host columns only: a
    ResidentColumn lives on one Device."""

    _what = "device set"

    def __init__(self, devices, speeds=None):
        pairs = [(int(p), int(d)) for p, d in devices]
        n = len(pairs)
        handle = ctypes.c_void_p()
        _check(lib.clm_device_set_open((ctypes.c_int * n)(*[p for p, _ in pairs]),
                                       (ctypes.c_int * n)(*[d for _, d in pairs]), n,
                                       ctypes.byref(handle)), "clm_device_set_open")
        self._handle = handle
        self._children = []
        self._own(_close_device, handle, self._children, lib.clm_device_set_close)
        self.devices = pairs
        if speeds is not None:
            self.speeds = speeds

    def __len__(self):
        return len(self.devices)

    def __repr__(self):
        return "<clmatch.DeviceSet %s%s>" % (
            ",".join("%d:%d" % p for p in self.devices), " closed" if self.closed else "")

    @property
    def speeds(self):
        """The speeds that split the rows, one per device (all 0: equal shares)."""
        out = (ctypes.c_double * len(self))()
        _check(lib.clm_device_set_get_speeds(self._live(), out, len(self)),
               "clm_device_set_get_speeds")
        return list(out)

    @speeds.setter
    def speeds(self, values):
        if values is None:
            arg = None
        else:
            values = [float(v) for v in values]
            arg = (ctypes.c_double * len(values))(*values)
        _check(lib.clm_device_set_set_speeds(self._live(), arg,
                                             len(self) if values is None else len(values)),
               "clm_device_set_set_speeds")


_default = None


def default_device():
    """The device the functions use when given none: Device() opened on first use."""
    global _default
    if _default is None or _default.closed:
        _default = Device()
    return _default


def _flags(value, n, what):
    """Per-pattern booleans from one bool or a sequence of n."""
    if isinstance(value, (bool, int)):
        return [bool(value)] * n
    values = [bool(v) for v in value]
    if len(values) != n:
        raise ValueError("clmatch: %s has %d values for %d patterns" % (what, len(values), n))
    return values


def _escape_byte(escape):
    if escape is None:
        return _lib.CLM_LIKE_NO_ESCAPE
    if isinstance(escape, int):
        return escape  # the library checks the range
    b = escape.encode() if isinstance(escape, str) else bytes(escape)
    if len(b) != 1:
        raise ValueError("clmatch: the escape is one byte, not %r" % (escape,))
    return b[0]


def _encode(p):
    return p.encode() if isinstance(p, str) else bytes(p)


class Predicate(_Handle):
    """A disjunction of SQL LIKE patterns compiled for a Device, or for each device of a
    DeviceSet (clm_like_compile): a row is selected when it is not NULL and any pattern
    selects it. pattern: one str / bytes or a sequence of them (an OR); escape: None or one byte ('\\\\'); ilike, negate: one bool for
    every pattern or one per pattern (ILIKE: ASCII case-insensitive; negate: NOT LIKE).
    errors: None (LIKE), or K: the patterns are plain substrings that a row holds within K
    errors (clm_approx_compile: edits, or with mismatches_only substitutions only; K at most
    8 and below each pattern's length, patterns 1 to 64 bytes; escape must be None)."""

    def __init__(self, device, pattern, *, escape=None, ilike=False, negate=False,
                 errors=None, mismatches_only=False):
        pats = [pattern] if isinstance(pattern, (str, bytes)) else list(pattern)
        if not pats:
            raise ValueError("clmatch: no pattern")
        if errors is None and mismatches_only:
            raise ValueError("clmatch: mismatches_only needs errors")
        if errors is not None and escape is not None:
            raise ValueError("clmatch: approximate patterns take no escape")
        raw = [_encode(p) for p in pats]
        n = len(raw)
        flags = [(_lib.CLM_LIKE_CASELESS if i else 0) | (_lib.CLM_LIKE_NOT if v else 0)
                 for i, v in zip(_flags(ilike, n, "ilike"), _flags(negate, n, "negate"))]
        if errors is not None and (isinstance(errors, bool) or not isinstance(errors, int) or
                                   errors < 0):
            raise ValueError("clmatch: errors is an int >= 0, not %r" % (errors,))
        args = ((ctypes.c_char_p * n)(*raw), (ctypes.c_size_t * n)(*map(len, raw)),
                (ctypes.c_uint * n)(*flags), n)

        def compile_for(dev):
            handle = ctypes.c_void_p()
            if errors is None:
                _check(lib.clm_like_compile(dev, *args, _escape_byte(escape),
                                            ctypes.byref(handle)), "clm_like_compile")
            else:
                mode = _lib.CLM_APPROX_MISMATCHES if mismatches_only else _lib.CLM_APPROX_EDITS
                _check(lib.clm_approx_compile(dev, *args, errors, mode, ctypes.byref(handle)),
                       "clm_approx_compile")
            return handle

        self._on_set = isinstance(device, DeviceSet)
        if self._on_set:
            handle = self._compile_set(device, compile_for)
            free = lib.clm_set_like_free
        else:
            handle = compile_for(device._live())
            free = lib.clm_like_free
        self.device = device
        self.patterns = pats
        self._handle = handle
        device._adopt(self._own(free, handle))

    @classmethod
    def any_of(cls, *predicates):
        """One predicate that ORs these Predicates of one Device (LIKE and approximate
        alike): a row is selected when any of them selects it, in one pass over the rows
        (clm_like_or). The predicates stay usable."""
        if not predicates:
            raise ValueError("clmatch: any_of needs a predicate")
        dev = predicates[0].device if isinstance(predicates[0], Predicate) else None
        for p in predicates:
            if not isinstance(p, Predicate):
                raise TypeError("clmatch: any_of takes Predicates, not %r" % (p,))
            if p._on_set or p.device is not dev:
                raise ValueError("clmatch: any_of takes Predicates of one Device")
            if p.closed:
                raise ValueError("clmatch: the predicate is closed")
        handles = (ctypes.c_void_p * len(predicates))(*[p._handle for p in predicates])
        handle = ctypes.c_void_p()
        _check(lib.clm_like_or(handles, len(predicates), ctypes.byref(handle)), "clm_like_or")
        self = cls.__new__(cls)
        self._on_set = False
        self.device = dev
        self.patterns = [x for p in predicates for x in p.patterns]
        self._handle = handle
        dev._adopt(self._own(lib.clm_like_free, handle))
        return self

    @staticmethod
    def _compile_set(dset, compile_for):
        """The predicate compiled for each device of the set, wrapped (clm_set_like_wrap)."""
        live = dset._live()
        per = []
        try:
            for i in range(len(dset)):
                per.append(compile_for(lib.clm_device_set_device(live, i)))
            handle = ctypes.c_void_p()
            _check(lib.clm_set_like_wrap(live, (ctypes.c_void_p * len(per))(*per),
                                         ctypes.byref(handle)), "clm_set_like_wrap")
        except BaseException:
            for h in per:  # still the caller's: the wrap failed or never ran
                lib.clm_like_free(h)
            raise
        return handle

    def _select(self, column, want):
        """Run over each chunk of column; want: "bitmap", "ids" or "count"."""
        if self.closed:
            raise ValueError("clmatch: the predicate is closed")
        own = None
        if isinstance(column, ResidentColumn):
            if self._on_set:
                raise ValueError("clmatch: a DeviceSet selects host columns; a "
                                 "ResidentColumn lives on one Device")
            if column.closed:
                raise ValueError("clmatch: the resident column is closed")
            handles, rows, chunked = column._handles, column._rows, column.chunked
        else:
            own = HostChunks(column)
            handles, rows, chunked = own.handles, own.rows, own.chunked
        try:
            parts = [self._select_chunk(h, r, want) for h, r in zip(handles, rows)]
        finally:
            if own is not None:
                own.close()
        if want == "count":
            return sum(parts)
        if want == "ids":
            base = np.cumsum([0] + list(rows[:-1]), dtype=np.int64)
            ids = [p + b for p, b in zip(parts, base)]
            return np.concatenate(ids) if ids else np.empty(0, np.int64)
        if chunked:
            return pa.chunked_array(parts, type=pa.bool_())
        return parts[0]

    def _select_chunk(self, handle, rows, want):
        sel = _lib.Selection()
        _check(lib.clm_selection_init(ctypes.byref(sel), ctypes.sizeof(sel)),
               "clm_selection_init")
        out = None
        if want == "bitmap":
            out = np.zeros((rows + 7) // 8, np.uint8)
            sel.bitmap = out.ctypes.data
        elif want == "ids":
            out = np.empty(rows, np.int64)  # every row at most: one pass
            sel.row_ids = out.ctypes.data
            sel.row_id_bits = 64
            sel.row_id_capacity = rows
        if self._on_set:
            _check(lib.clm_set_like_select(self._handle, handle, ctypes.byref(sel)),
                   "clm_set_like_select")
        else:
            _check(lib.clm_like_select(self._handle, handle, ctypes.byref(sel)),
                   "clm_like_select")
        if want == "bitmap":
            return pa.Array.from_buffers(pa.bool_(), rows, [None, pa.py_buffer(out)])
        if want == "ids":
            return out[:sel.count].copy()
        return sel.count

    def select(self, column, *, ids=False):
        """The rows of column this predicate selects: a pyarrow BooleanArray (a ChunkedArray
        for a chunked column; NULL rows False), or with ids=True ascending numpy int64 row
        ids (over the chunks, as one column)."""
        return self._select(column, "ids" if ids else "bitmap")

    def count(self, column):
        """How many rows of column this predicate selects."""
        return self._select(column, "count")


def _free_columns(handles):
    for h in handles:
        lib.clm_column_free(h)


class ResidentColumn(_Handle):
    """A column uploaded once to a device (clm_column_upload, one per chunk) for any number
    of queries on that device; close() (or a with block) frees its device memory."""

    def __init__(self, device, column, *, pivot=None, self_pivot=None):
        dev = device._live()
        if pivot is not None and (isinstance(pivot, bool) or not isinstance(pivot, int)):
            raise ValueError("clmatch: pivot is None, 4, 8 or 16, not %r" % (pivot,))
        if self_pivot is not None and (
                pivot is not None or not isinstance(self_pivot, tuple) or len(self_pivot) != 3
                or any(isinstance(v, bool) or not isinstance(v, int) or v < 0
                       for v in self_pivot)):
            raise ValueError("clmatch: self_pivot is None or (width, segments, seg_bytes), "
                             "without pivot, not %r" % (self_pivot,))
        host = HostChunks(column)
        handles = []
        try:
            for h in host.handles:
                out = ctypes.c_void_p()
                if self_pivot is not None:
                    w, segs, seg_bytes = self_pivot
                    _check(lib.clm_column_self_pivot(dev, h, w, segs, seg_bytes,
                                                     ctypes.byref(out)),
                           "clm_column_self_pivot")
                elif pivot is None:
                    _check(lib.clm_column_upload(dev, h, ctypes.byref(out)),
                           "clm_column_upload")
                else:
                    _check(lib.clm_column_pivot(dev, h, pivot, ctypes.byref(out)),
                           "clm_column_pivot")
                handles.append(out)
        except BaseException:
            _free_columns(handles)
            raise
        finally:
            host.close()  # the device has its copy
        self.device = device
        self.chunked = host.chunked
        self._rows = host.rows
        self._handles = handles
        device._adopt(self._own(_free_columns, handles))

    def __len__(self):
        return int(sum(self._rows))

    def __repr__(self):
        return "<clmatch.ResidentColumn %d rows on %r%s>" % (
            len(self), self.device.info["name"], " closed" if self.closed else "")

    def like(self, pattern, **kw):
        return like(self, pattern, **kw)

    def contains(self, substring, *args, **kw):
        return contains(self, substring, *args, **kw)

    def count(self, pattern, **kw):
        return count(self, pattern, **kw)


def _device_for(column, device):
    if device is not None:
        return device
    if isinstance(column, ResidentColumn):
        return column.device
    return default_device()


def _run(column, pattern, device, want, **kw):
    with Predicate(_device_for(column, device), pattern, **kw) as pred:
        return pred._select(column, want)


def like(column, pattern, *, escape=None, ilike=False, negate=False, device=None, ids=False):
    """The rows of column that SQL `LIKE pattern` selects (pattern a sequence: any of them).

    '%' matches any run of bytes, '_' one byte, escape (None, or one byte such as '\\\\')
    makes the next byte literal. ilike: ASCII case-insensitive; negate: NOT LIKE (both one
    bool, or one per pattern). A NULL row is selected by neither LIKE nor NOT LIKE.
    Returns a pyarrow BooleanArray (NULL rows False; a ChunkedArray for a chunked column),
    or with ids=True the ascending numpy int64 row ids. device: a Device; default the
    column's (resident) or default_device()."""
    return _run(column, pattern, device, "ids" if ids else "bitmap", escape=escape,
                ilike=ilike, negate=negate)


def _contains_pattern(sub):
    b = _encode(sub)
    for c in (b"\\", b"%", b"_"):
        b = b.replace(c, b"\\" + c)
    return b"%" + b + b"%"


def contains(column, substring, k=0, *, mismatches_only=False, ilike=False, negate=False,
             device=None, ids=False):
    """The rows of column holding substring (a sequence: any of them).

    k=0: literally, as like() with '%substring%' (its '%', '_' and '\\\\' escaped). k > 0:
    within k errors (clm_approx_compile): edits (insertions, deletions, substitutions), or
    with mismatches_only=True substitutions only (Hamming distance); k at most 8 and below
    the substring's length, substrings 1 to 64 bytes. ilike, negate, device and ids as
    like(); NULL rows are selected by neither."""
    subs = [substring] if isinstance(substring, (str, bytes)) else list(substring)
    if k == 0 and not mismatches_only:
        return like(column, [_contains_pattern(s) for s in subs], escape="\\", ilike=ilike,
                    negate=negate, device=device, ids=ids)
    return _run(column, subs, device, "ids" if ids else "bitmap", ilike=ilike, negate=negate,
                errors=k, mismatches_only=mismatches_only)


def count(column, pattern, *, escape=None, ilike=False, negate=False, device=None):
    """How many rows of column like() selects (an int)."""
    return _run(column, pattern, device, "count", escape=escape, ilike=ilike, negate=negate)
