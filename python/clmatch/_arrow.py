"""Columns from the Arrow PyCapsule interface, handed to clm_column_from_arrow without a copy.

An object offering __arrow_c_array__ (one array) or __arrow_c_stream__ (chunks: pyarrow's
ChunkedArray, Polars' Series) becomes a list of host clm_column handles, one per chunk; the
capsules (or, for a stream, the ArrowArray structs it filled) are kept until the columns are
freed, since the library reads the producer's buffers in place.
"""
import ctypes

import pyarrow as pa

from . import _lib
from ._lib import ArrowArray, ArrowArrayStream, ArrowSchema, lib

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# Arrow formats clm_column_from_arrow reads, and the binary ones with the same layout that
# pyarrow can view as strings without a copy (LIKE compares bytes either way).
_STRINGS = (b"u", b"U", b"vu")
_BINARY_AS_STRING = {b"z": pa.string(), b"Z": pa.large_string(), b"vz": "string_view"}


def _as_arrow(column):
    """An object of the Arrow PyCapsule interface for column: itself, or pyarrow's array of a
    Python sequence of str / bytes (None: NULL)."""
    if hasattr(column, "__arrow_c_array__") or hasattr(column, "__arrow_c_stream__"):
        return column
    if isinstance(column, (str, bytes)):
        raise TypeError("clmatch: a column is a sequence of strings, not one string")
    try:
        return pa.array(column)
    except (pa.ArrowException, TypeError) as e:
        raise TypeError("clmatch: a column is an Arrow array of strings (an object with "
                        "__arrow_c_array__ or __arrow_c_stream__) or a sequence of str or "
                        "bytes: %s" % e) from None


class _OpenedArray:
    """Capsules already taken from a producer, offered again to pyarrow (asking the producer
    twice may not work: a DuckDB relation refuses a second result while one is open)."""

    def __init__(self, schema_capsule, array_capsule):
        self._capsules = (schema_capsule, array_capsule)

    def __arrow_c_array__(self, requested_schema=None):
        return self._capsules


class _OpenedStream:
    def __init__(self, stream_capsule):
        self._capsule = stream_capsule

    def __arrow_c_stream__(self, requested_schema=None):
        return self._capsule


def _single_column(obj):
    """The one column of a table or record batch (a struct "+s" over the interface: DuckDB's
    relations, pyarrow's tables), as pyarrow reads it."""
    table = pa.table(obj)
    if table.num_columns != 1:
        raise TypeError("clmatch: a table of %d columns (%s): pass one column"
                        % (table.num_columns, ", ".join(table.column_names)))
    return table.column(0)


def _view_as_string(column, fmt):
    """column (binary, format fmt) viewed as strings by pyarrow: same buffers, no copy."""
    target = _BINARY_AS_STRING[fmt]
    if target == "string_view":
        target = pa.string_view()
    if isinstance(column, _OpenedArray):
        return pa.array(column).view(target)
    # a ChunkedArray has no view(): its chunks do
    return pa.chunked_array([c.view(target) for c in pa.chunked_array(column).chunks], target)


def _check(rc, what):
    if rc != _lib.CLM_OK:
        from . import Error  # the public exception, defined over this module
        raise Error.from_status(rc, what)


def _from_arrow(schema_ptr, array_ptr):
    handle = ctypes.c_void_p()
    _check(lib.clm_column_from_arrow(schema_ptr, array_ptr, ctypes.byref(handle)),
           "clm_column_from_arrow")
    return handle


class HostChunks:
    """The clm_column handles of one column's chunks over the producer's memory, with what
    keeps that memory alive; close() frees them (columns first, then the Arrow structs)."""

    def __init__(self, column):
        self.handles = []   # clm_column pointers (c_void_p), one per chunk
        self.rows = []      # each chunk's rows
        self._keep = []     # capsules kept alive while the columns read their buffers
        self._owned = []    # ArrowArray / ArrowSchema structs this object must release
        self.chunked = False  # from a stream: results are chunked alike
        try:
            self._open(_as_arrow(column))
        except BaseException:
            self.close()
            raise

    def _open(self, obj):
        if hasattr(obj, "__arrow_c_array__"):
            schema_capsule, array_capsule = obj.__arrow_c_array__()
            schema = ctypes.cast(_capsule_pointer(schema_capsule, b"arrow_schema"),
                                 ctypes.POINTER(ArrowSchema))
            fmt = schema.contents.format
            if fmt in _BINARY_AS_STRING:
                return self._open(_view_as_string(_OpenedArray(schema_capsule, array_capsule),
                                                  fmt))
            if fmt == b"+s":
                return self._open(_single_column(_OpenedArray(schema_capsule, array_capsule)))
            self._keep += [schema_capsule, array_capsule]
            array = _capsule_pointer(array_capsule, b"arrow_array")
            self._add(schema, array)
            return
        stream_capsule = obj.__arrow_c_stream__()
        self.chunked = True
        self._keep.append(stream_capsule)
        stream = ctypes.cast(_capsule_pointer(stream_capsule, b"arrow_array_stream"),
                             ctypes.POINTER(ArrowArrayStream))
        schema = ArrowSchema()
        if stream.contents.get_schema(stream, ctypes.byref(schema)) != 0:
            raise _stream_error(stream, "get_schema")
        self._owned.append(schema)
        if schema.format in _BINARY_AS_STRING:
            return self._open(_view_as_string(_OpenedStream(stream_capsule), schema.format))
        if schema.format == b"+s":
            return self._open(_single_column(_OpenedStream(stream_capsule)))
        while True:
            array = ArrowArray()
            if stream.contents.get_next(stream, ctypes.byref(array)) != 0:
                raise _stream_error(stream, "get_next")
            if not array.release:  # the end of the stream
                break
            self._owned.append(array)
            self._add(ctypes.pointer(schema), ctypes.addressof(array))

    def _add(self, schema_ptr, array_ptr):
        handle = _from_arrow(schema_ptr, array_ptr)
        self.handles.append(handle)
        info = _lib.ColumnInfo()
        _check(lib.clm_column_get_info(handle, ctypes.byref(info), ctypes.sizeof(info)),
               "clm_column_get_info")
        self.rows.append(info.rows)

    def close(self):
        for h in self.handles:
            lib.clm_column_free(h)
        self.handles = []
        for s in reversed(self._owned):
            if s.release:
                s.release(ctypes.pointer(s))
        self._owned = []
        self._keep = []


def _stream_error(stream, call):
    msg = stream.contents.get_last_error(stream) if stream.contents.get_last_error else None
    return ValueError("clmatch: Arrow stream %s failed%s" %
                      (call, ": " + msg.decode(errors="replace") if msg else ""))
