"""ctypes declarations of libclmatch.so (include/clmatch.h) and where the library is found.

Only what the binding calls is declared. The structs mirror clmatch.h field for field: the
library checks the sizes it is given, so a mismatch is an error, not a silent misread.
"""
import ctypes
import ctypes.util
import os

# Status codes (clmatch.h "Status codes").
CLM_OK = 0

# clm_like_compile's flags and escape.
CLM_LIKE_CASELESS = 1
CLM_LIKE_NOT = 2
CLM_LIKE_NO_ESCAPE = -1

# clm_approx_compile's modes.
CLM_APPROX_EDITS = 0
CLM_APPROX_MISMATCHES = 1


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))),
    ("private_data", ctypes.c_void_p),
]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))),
    ("private_data", ctypes.c_void_p),
]


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                                    ctypes.POINTER(ArrowSchema))),
    ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                                  ctypes.POINTER(ArrowArray))),
    ("get_last_error", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))),
    ("private_data", ctypes.c_void_p),
]


class DeviceInfo(ctypes.Structure):
    _fields_ = [
        ("platform_index", ctypes.c_int),
        ("device_index", ctypes.c_int),
        ("platform_name", ctypes.c_char * 128),
        ("platform_vendor", ctypes.c_char * 128),
        ("platform_version", ctypes.c_char * 128),
        ("name", ctypes.c_char * 256),
        ("vendor", ctypes.c_char * 128),
        ("version", ctypes.c_char * 128),
        ("driver_version", ctypes.c_char * 128),
        ("opencl_c_version", ctypes.c_char * 128),
        ("type", ctypes.c_int),
        ("compute_units", ctypes.c_uint),
        ("max_clock_mhz", ctypes.c_uint),
        ("global_mem_bytes", ctypes.c_uint64),
        ("max_alloc_bytes", ctypes.c_uint64),
        ("local_mem_bytes", ctypes.c_uint64),
        ("local_mem_dedicated", ctypes.c_int),
        ("constant_mem_bytes", ctypes.c_uint64),
        ("max_work_group_size", ctypes.c_size_t),
        ("preferred_work_group_multiple", ctypes.c_size_t),
        ("host_unified_memory", ctypes.c_int),
        ("svm_capabilities", ctypes.c_uint64),
        ("mem_base_align_bits", ctypes.c_uint),
        ("available", ctypes.c_int),
        ("extensions", ctypes.c_char * 4096),
        ("open_platforms_seconds", ctypes.c_double),
        ("open_devices_seconds", ctypes.c_double),
        ("open_context_seconds", ctypes.c_double),
    ]


class ColumnInfo(ctypes.Structure):
    _fields_ = [
        ("rows", ctypes.c_uint64),
        ("nulls", ctypes.c_uint64),
        ("data_bytes", ctypes.c_uint64),
        ("offset_bits", ctypes.c_uint),
        ("resident", ctypes.c_int),
    ]


class Selection(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("bitmap", ctypes.c_void_p),
        ("row_ids", ctypes.c_void_p),
        ("row_id_bits", ctypes.c_uint),
        ("row_id_capacity", ctypes.c_uint64),
        ("positions", ctypes.c_void_p),
        ("slab_bytes", ctypes.c_size_t),
        ("kernel", ctypes.c_int),
        ("data_path", ctypes.c_int),
        ("count", ctypes.c_uint64),
        ("kernel_used", ctypes.c_int),
        ("data_path_used", ctypes.c_int),
    ]


_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)

# name: (restype, argtypes)
_SIGNATURES = {
    "clm_version": (ctypes.c_char_p, []),
    "clm_strerror": (ctypes.c_char_p, [ctypes.c_int]),
    "clm_last_error": (ctypes.c_char_p, []),
    "clm_list_devices": (ctypes.c_int, [ctypes.c_uint, ctypes.c_size_t,
                                        ctypes.POINTER(ctypes.POINTER(DeviceInfo)),
                                        ctypes.POINTER(ctypes.c_size_t)]),
    "clm_free_device_list": (None, [ctypes.POINTER(DeviceInfo)]),
    "clm_device_open": (ctypes.c_int, [ctypes.c_int, ctypes.c_int, _PP]),
    "clm_device_get_info": (ctypes.c_int, [_P, ctypes.POINTER(DeviceInfo), ctypes.c_size_t]),
    "clm_device_close": (None, [_P]),
    "clm_column_from_arrow": (ctypes.c_int, [_P, _P, _PP]),
    "clm_column_upload": (ctypes.c_int, [_P, _P, _PP]),
    "clm_column_pivot": (ctypes.c_int, [_P, _P, ctypes.c_uint, _PP]),
    "clm_column_self_pivot": (ctypes.c_int, [_P, _P, ctypes.c_uint, ctypes.c_uint,
                                             ctypes.c_uint, _PP]),
    "clm_column_free": (None, [_P]),
    "clm_column_get_info": (ctypes.c_int, [_P, ctypes.POINTER(ColumnInfo), ctypes.c_size_t]),
    "clm_like_compile": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_char_p),
                                        ctypes.POINTER(ctypes.c_size_t),
                                        ctypes.POINTER(ctypes.c_uint), ctypes.c_uint,
                                        ctypes.c_int, _PP]),
    "clm_approx_compile": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_char_p),
                                          ctypes.POINTER(ctypes.c_size_t),
                                          ctypes.POINTER(ctypes.c_uint), ctypes.c_uint,
                                          ctypes.c_uint, ctypes.c_int, _PP]),
    "clm_like_or": (ctypes.c_int, [_PP, ctypes.c_uint, _PP]),
    "clm_like_free": (None, [_P]),
    "clm_selection_init": (ctypes.c_int, [ctypes.POINTER(Selection), ctypes.c_size_t]),
    "clm_like_select": (ctypes.c_int, [_P, _P, ctypes.POINTER(Selection)]),
    "clm_device_set_open": (ctypes.c_int, [ctypes.POINTER(ctypes.c_int),
                                           ctypes.POINTER(ctypes.c_int), ctypes.c_uint, _PP]),
    "clm_device_set_close": (None, [_P]),
    "clm_device_set_count": (ctypes.c_uint, [_P]),
    "clm_device_set_device": (_P, [_P, ctypes.c_uint]),
    "clm_device_set_get_speeds": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_double),
                                                 ctypes.c_uint]),
    "clm_device_set_set_speeds": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_double),
                                                 ctypes.c_uint]),
    "clm_set_like_wrap": (ctypes.c_int, [_P, _PP, _PP]),
    "clm_set_like_free": (None, [_P]),
    "clm_set_like_select": (ctypes.c_int, [_P, _P, ctypes.POINTER(Selection)]),
}

LIBRARY_ENV = "CLMATCH_LIBRARY"


def _candidates():
    """Where libclmatch.so is looked for, in order: $CLMATCH_LIBRARY (a path), the package's
    own directory (pip install copies the built library there), build/ of the source
    checkout this package sits in, then the system's loader path (ldconfig, LD_LIBRARY_PATH)."""
    env = os.environ.get(LIBRARY_ENV)
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "libclmatch.so")
    yield os.path.join(here, os.pardir, os.pardir, "build", "libclmatch.so")
    yield ctypes.util.find_library("clmatch") or "libclmatch.so"


def load():
    """Load and declare libclmatch; an OSError listing the places tried when none loads."""
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (missing)")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        lib.path = path
        return lib
    raise OSError("clmatch: libclmatch.so not found (build it with make, or set %s to its "
                  "path); tried: %s" % (LIBRARY_ENV, "; ".join(tried)))


lib = load()
