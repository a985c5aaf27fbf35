"""The C library (libdglpart.so) through ctypes, and its errors as Python
exceptions. Everything here is plumbing: the work is the library's."""

import ctypes
import os
import threading

# enum dp_err (include/dglpart/error.h): codes never change
EINVAL, ENOMEM, ERANGE, ETOOBIG, EEXIST, EINTR, EUNSUPPORTED = 1, 2, 5, 6, 7, 13, 15


class Error(RuntimeError):
    """A failure reported by the library, with its one-line message."""


class ArgumentError(Error, ValueError):
    """An argument the library refused (its message names it)."""


class ResourceError(Error, MemoryError):
    """Not enough memory or disk for the run (the message gives both)."""


def _load():
    # DGLPART_LIBRARY: a library built in a source tree (make shared), for
    # running the package from there without installing it
    path = os.environ.get("DGLPART_LIBRARY") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "libdglpart.so")
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            "dglpart: cannot load its C library '%s' (%s): install the "
            "package with pip or 'make install', or set DGLPART_LIBRARY"
            % (path, e)) from None
    p, i64, cstr = ctypes.c_void_p, ctypes.c_int64, ctypes.c_char_p
    sig = {
        "dp_arrays_new": (p, []),
        "dp_arrays_free": (None, [p]),
        "dp_arrays_add_ntype": (ctypes.c_int, [p, cstr, i64]),
        "dp_arrays_add_etype": (ctypes.c_int, [p, cstr, i64, cstr, p, p]),
        "dp_arrays_add_data": (ctypes.c_int, [p, ctypes.c_int, ctypes.c_int,
                                              cstr, cstr, ctypes.c_int,
                                              ctypes.POINTER(i64), p]),
        "dp_arrays_set_balance": (ctypes.c_int, [p, ctypes.c_int, cstr, p]),
        "dp_arrays_set_option": (ctypes.c_int, [p, cstr, cstr]),
        "dp_arrays_partition": (ctypes.c_int, [p, cstr, cstr, p, p]),
        "dp_arrays_num_nodes": (i64, [p]),
        "dp_arrays_num_edges": (i64, [p]),
        "dp_errmsg": (cstr, []),
        "dp_strerror": (cstr, [ctypes.c_int]),
        "dp_interrupt": (None, []),
        "dp_interrupt_clear": (None, []),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


lib = _load()


def raise_for(rc, msg=None):
    """Raise the exception for library code rc, with its message."""
    if not rc:
        return
    if msg is None:
        msg = lib.dp_errmsg()
    text = (msg or lib.dp_strerror(rc)).decode("utf-8", "replace")
    if rc == EINTR:
        raise KeyboardInterrupt(text)
    if rc in (EINVAL, ERANGE, EEXIST, EUNSUPPORTED):
        raise ArgumentError(text)
    if rc in (ENOMEM, ETOOBIG):
        raise ResourceError(text)
    raise Error(text)


def check(rc):
    """Raise for rc from a call made on this thread."""
    raise_for(rc)


def run_interruptible(fn, *args):
    """fn(*args) on a worker thread (ctypes drops the GIL while C runs);
    Ctrl-C asks the library to stop, waits for it to clean up, then
    raises KeyboardInterrupt here."""
    out = {"rc": EINTR, "msg": None}
    done = threading.Event()
    lock = threading.Lock()
    state = {"cancelled": False, "running": False}

    def work():
        with lock:
            if state["cancelled"]:
                return
            state["running"] = True
        try:
            out["rc"] = fn(*args)
            # the message is per thread: read it on the thread that set it
            out["msg"] = lib.dp_errmsg() if out["rc"] else None
        finally:
            done.set()

    lib.dp_interrupt_clear()
    # waits on an event of its own: a Ctrl-C inside Thread.join can leave
    # the thread looking stopped while it still runs (CPython gh-90882)
    t = threading.Thread(target=work, name="dglpart", daemon=True)
    try:
        t.start()
        while not done.wait(0.2):
            pass
    except KeyboardInterrupt:
        # the caller frees what the library reads: never return while it
        # runs, whatever more Ctrl-C comes meanwhile
        with lock:
            state["cancelled"] = True
            running = state["running"]
        lib.dp_interrupt()
        while running and not done.is_set():
            try:
                done.wait()
            except KeyboardInterrupt:
                pass
        raise
    raise_for(out["rc"], out["msg"])
