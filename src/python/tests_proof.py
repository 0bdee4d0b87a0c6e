# prompteval's proof that a question's hidden tests ran to their end
# (src/sandbox/proof.rs explains the protocol).
#
# A tests case's main.py is the program, a start marker, the tests, and an
# end marker, each marker a call of sys.audit("prompteval.tests", ...).
# The harness hands the case a memfd on stdin holding a per-case secret and
# the markers' line numbers. arm(), run before main.py (as sitecustomize
# on the fresh paths, by the warm interpreter in its hand-over), reads and
# erases it, puts /dev/null back on stdin, and installs an audit hook that
# the program cannot remove. The secret never reaches main.py, the
# environment or any file the program can read; it lives only in the hook.
#
# The hook writes "done <secret>" only when the end marker runs in the very
# module code that main.py's source compiles to, at its line: every
# statement before it, the tests included, ran to completion in that code.
# A program that exits (sys.exit, os._exit, an atexit or excepthook trick,
# a fork) before that point leaves no proof, and what the hook saw on the
# way (the tests started, an exception left main.py, the interpreter's
# normal exit began) tells the harness how it ended.
#
# Records sit at fixed offsets so that nothing a program writes later can
# push the proof out of the part the harness reads; only "done" carries the
# secret, and it is written last.

import sys

_HEADER = b"prompteval-proof "
_EVENT = "prompteval.tests"
# Offsets of the records (the harness reads the first _SIZE bytes).
_DONE = 0
_STARTED = 64
_EXITING = 96
_TRACED = 128
_RAISED = 160
_SUSPECT = 320
_SIZE = 1024


def arm(fd=0, modules=None):
    """Arms the proof if `fd` holds a proof header; otherwise does nothing.
    `modules`: (atexit, gc, io, fcntl) already imported (by the warm
    interpreter, which takes its imports out of sys.modules: imported here,
    they would be loaded anew in each case)."""
    import os

    try:
        head = os.pread(fd, 256, 0)
    except OSError:
        return
    if not head.startswith(_HEADER):
        return
    try:
        _, secret, start, end = head.split(b"\n", 1)[0].split(b" ")
        start, end = int(start), int(end)
    except ValueError:
        return
    if modules is None:
        import atexit
        import gc
        import io

        try:
            import fcntl
        except ImportError:
            fcntl = None
    else:
        atexit, gc, io, fcntl = modules
    # main.py as the interpreter will compile it, read before the secret is
    # taken: if it cannot be read, the header stays and the harness says the
    # prelude never ran (its failure), rather than the program's.
    try:
        with io.open("main.py", "rb") as f:
            source = f.read()
    except OSError:
        return
    try:
        if fcntl is None:
            raise OSError("no fcntl")
        # Out of the way of the program's own descriptors, and not
        # inherited by what it execs.
        proof = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 64)
    except OSError:
        proof = os.dup(fd)
    os.ftruncate(proof, 0)
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, fd)
        os.close(null)
    except OSError:
        pass  # fd stays the (now empty) proof file; the secret is gone from it

    pwrite = os.pwrite
    getframe = sys._getframe
    get_objects = gc.get_objects
    compile_ = compile
    function = type(arm)
    state = {"code": None, "started": False}
    classes = []
    seen = set()

    def name_of(cls):
        try:
            name = type.__dict__["__qualname__"].__get__(cls)
        except BaseException:
            return "?"
        return name if isinstance(name, str) else "?"

    def write(offset, text):
        try:
            pwrite(proof, text[: _SIZE - offset], offset)
        except OSError:
            pass

    def genuine(frame, line):
        """Whether `frame` runs main.py's own module code at `line`."""
        if frame is None or frame.f_code.co_name != "<module>" or frame.f_lineno != line:
            return False
        if state["code"] is None:
            try:
                state["code"] = compile_(source, frame.f_code.co_filename, "exec", dont_inherit=True)
            except BaseException:
                return False
        return frame.f_code == state["code"]

    def note_class(obj):
        try:
            if isinstance(obj, type) and id(obj) not in seen and obj.__module__ == "__main__":
                seen.add(id(obj))
                classes.append(obj)
        except BaseException:
            pass

    def on_collection(phase, info):
        # A class made inside the candidate may be freed by a collection
        # before the tests end: the young generation is looked at first.
        if phase == "start":
            for obj in get_objects(0):
                note_class(obj)

    def equals_anything(cls):
        """Whether instances of `cls` (the program's) equal a stranger."""
        eq = None
        for klass in cls.__mro__:
            eq = klass.__dict__.get("__eq__")
            if eq is not None:
                break
        if type(eq) is not function:
            return False  # object's or a builtin's: never equal to a stranger
        try:
            instance = object.__new__(cls)
        except BaseException:
            try:
                instance = cls.__new__(cls)
            except BaseException:
                instance = None

        class Stranger:
            __slots__ = ()

        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = io.StringIO()
        try:
            result = eq(instance, Stranger())
            return result is not NotImplemented and bool(result)
        except BaseException:
            return False
        finally:
            sys.stdout, sys.stderr = saved

    def suspects():
        main = sys.modules.get("__main__")
        for value in list(getattr(main, "__dict__", {}).values()):
            note_class(value)
        for obj in get_objects(0):
            note_class(obj)
        return [name_of(cls) for cls in classes if equals_anything(cls)]

    def hook(event, args):
        if event == _EVENT:
            frame = getframe(1)
            if args == ("start",) and genuine(frame, start):
                if not state["started"]:
                    state["started"] = True
                    write(_STARTED, b"started\n")
                    gc.callbacks.append(on_collection)
            elif args == ("end",) and genuine(frame, end):
                found = suspects()
                if found:
                    write(_SUSPECT, ("suspect " + " ".join(found) + "\n").encode("utf-8", "replace"))
                write(_DONE, b"done " + secret + b"\n")
        elif event == "sys.excepthook":
            write(_RAISED, ("raised " + name_of(args[1]) + "\n").encode("utf-8", "replace"))
        elif event == "sys.settrace":
            write(_TRACED, b"traced\n")

    sys.addaudithook(hook)
    atexit.register(write, _EXITING, b"exiting\n")


def _as_sitecustomize():
    """On the fresh paths: arm, then leave the interpreter as a fresh start
    has it (the warm interpreter's hand-over does the same)."""
    import os

    before = set(sys.modules)
    here = os.path.dirname(os.path.abspath(__file__))
    arm()
    for name in set(sys.modules) - before:
        del sys.modules[name]
    while here in sys.path:
        sys.path.remove(here)
    sys.path_importer_cache.pop(here, None)
    os.environ.pop("PYTHONPATH", None)
    del sys.modules["sitecustomize"]
    # This module's functions leave its dict, so no cycle of theirs waits
    # for a collection (gc.get_objects() would list them to the program);
    # an armed hook keeps what it uses. Not gc.freeze(): that would freeze
    # __main__ too, and its cycles would never be freed at shutdown.
    namespace = globals()
    for name in ("arm", "_as_sitecustomize"):
        namespace.pop(name, None)
    # The installation's own sitecustomize, if any, as a fresh start has;
    # ImportError(name="sitecustomize") when there is none is silenced by
    # site, which then leaves no "sitecustomize" in sys.modules either.
    import sitecustomize  # noqa: F401


if __name__ == "sitecustomize":
    _as_sitecustomize()
