# prompteval's warm interpreter (src/sandbox/warm.rs explains why).
#
# The harness starts `python -s -B -P main.py` exactly as it would for a
# case, with PYTHONPATH pointing at this file's folder, so the interpreter
# imports this file as `sitecustomize` once `site` has run (.pth files
# included) and before it opens main.py. Here it stops and serves: each
# case is a fork that isolates itself as the Rust fork server's cases do
# (zygote.rs, run_case), undoes what this file changed, and returns, so the
# interpreter goes on with its own start-up and runs main.py itself: the
# program's frames, tracebacks, exit and shutdown are the interpreter's own.
#
# Only names of modules a fresh start has already imported are used before
# the fork returns in the program, except ctypes, _socket and resource,
# which the program's process removes from sys.modules before it returns.

import sys

# What a fresh start has at this point, before anything of ours.
_FRESH_MODULES = set(sys.modules)
_FRESH_IMPORTERS = set(sys.path_importer_cache)

# The numbers shared with the harness (setup stages, report kinds) and the
# kernel's (namespace, mount and prctl flags, system call numbers) are not
# written here: the harness sends them from its own definitions (warm.rs
# CONSTANTS, from zygote.rs, isolate.rs and the libc crate) before the
# first case, and _take_constants sets these names from them.
_CONSTANTS = (
    "_NAMESPACES", "_ENTER_FOLDER", "_WRITE_SCRIPT",
    "_RLIMITS", "_REAPER", "_LANDLOCK", "_HAND_OVER", "_FORK",
    "_READY", "_REPORT_STATUS", "_REPORT_FAILED",
    "_CASE_NAMESPACES", "_SYS_LANDLOCK_RESTRICT_SELF",
    "_PR_SET_PDEATHSIG", "_PR_SET_NO_NEW_PRIVS",
    "_CAPABILITY_VERSION",
)

# The socket the harness put on this descriptor before exec (warm.rs
# SERVER_FD): needed to read anything else, so the one number agreed on.
_SERVER_FD = 3
# Py_TPFLAGS_HAVE_GC, part of the stable ABI: the collector tracks the
# type's instances.
_TPFLAGS_HAVE_GC = 1 << 14

# Weak reference callbacks of the standard library's own containers: they
# only take a dead entry out of their container, so the shutdown running
# them shows nothing.
_HARMLESS_CALLBACKS = {
    ("_weakrefset", "WeakSet.__init__.<locals>._remove"),
    ("weakref", "WeakValueDictionary.__init__.<locals>.remove"),
    ("weakref", "WeakKeyDictionary.__init__.<locals>.remove"),
}


def _harmless_callback(callback):
    return (getattr(callback, "__module__", None), getattr(callback, "__qualname__", None)) in _HARMLESS_CALLBACKS


def _take_constants(config):
    """Sets the shared numbers from the harness's `const.<name>` items; a
    harness that sends other names is another version of this file's."""
    sent = {}
    for key, value in config.items():
        if key.startswith("const."):
            sent[key[len("const."):]] = int(value)
    if set(sent) != set(_CONSTANTS):
        raise RuntimeError("the harness sent the constants %s, this server needs %s" % (sorted(sent), sorted(_CONSTANTS)))
    globals().update(sent)


class _SetupError(Exception):
    def __init__(self, stage, errno):
        super().__init__(stage, errno)
        self.stage = stage
        self.errno = errno


def _function_range(ctypes, libc, name):
    """(start, end) of an exported C function, from its ELF symbol's size;
    None if the symbol or its size cannot be found (or on 32 bits, whose
    symbol layout differs)."""
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    try:
        start = ctypes.cast(getattr(libc, name), ctypes.c_void_p).value
        info = (ctypes.c_void_p * 4)()
        symbol = ctypes.c_void_p()
        libc.dladdr1.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
        # RTLD_DL_SYMENT: the Elf64_Sym whose st_size (at 16) we need.
        if not libc.dladdr1(start, info, ctypes.byref(symbol), 1) or not symbol.value:
            return None
        size = ctypes.c_uint64.from_address(symbol.value + 16).value
    except (AttributeError, ValueError, OSError):
        return None
    return (start, start + size) if start and size else None


class _WayOut:
    """A shorter way out of the program's process, as exact as the long one.

    A fresh interpreter ends by wiping every module and freeing every
    object. In a fork of this server that work writes to nearly every page
    inherited from it, so the kernel copies them one fault at a time
    (measured on 3.12: 0.85 ms of a 2.7 ms case after the atexit
    functions). The interpreter runs main.py itself, so the program's
    frames, tracebacks, exit code and `sys.exit()` are its own; this ends
    the process where the rest of the shutdown can no longer be seen.

    The last atexit function (registered before main.py, so it runs after
    every function the program registered, once the interpreter has
    joined the program's threads) exits with the status the interpreter
    would return, 1 after an uncaught exception, else 0, after the flush
    the interpreter would make (sys.stdout and sys.stderr, then the
    original streams the wipe of sys would flush, then C stdio), when all
    of these hold; otherwise it returns and the interpreter shuts down as
    it always does:

    - main.py ended the normal way: it returned (on 3.12 and later,
      sys.monitoring's PY_RETURN event on main.py's code object, the one
      the interpreter reports with the `exec` audit event), or an exception
      left it and the interpreter reported it with its own excepthook (not
      an interrupt, which ends by its signal; a program's hook may call
      sys.exit()). Never `sys.exit()`, whose status only the interpreter
      knows. On 3.11, which has no sys.monitoring, the C stack says it: a
      return address in Py_RunMain, none in Py_Exit (`sys.exit()`'s way
      into the shutdown), read by backtrace() (glibc);
    - no PYTHONINSPECT;
    - nothing the program made could still run code or write while the
      modules are wiped: no object with a finalizer alive (a `__del__`, an
      open file, a suspended generator, a coroutine), no weak reference
      with a callback of the program's, no audit hook of the program's
      (the shutdown reports events to it), gc debugging off and gc.garbage
      empty. The start-up's objects are frozen at the hand-over, so
      gc.get_objects() lists exactly what the program made (and what it
      left unreachable);
    - every flush succeeds (a failed one makes the status 120, and the
      interpreter reports it: the interpreter then redoes it).
    """

    # A tool id no standard tool claims (0 debugger, 1 coverage, 2
    # profiler, 5 optimizer), held only while main.py runs.
    _TOOL = 4

    def __init__(self, ctypes, libc):
        import _weakref
        import atexit
        import gc
        import os

        libc.fflush.argtypes = [ctypes.c_void_p]
        self._fflush = libc.fflush
        self._exit = os._exit
        self._monitoring = getattr(sys, "monitoring", None)
        self._stack_says_normal = None if self._monitoring else self._way_out_reader(ctypes, libc)
        self._getframe = sys._getframe
        self._sys = sys
        self._gc = gc
        self._environ = os.environ
        self._register = atexit.register
        self._reference = _weakref.ReferenceType
        self._proxies = (_weakref.ProxyType, _weakref.CallableProxyType)
        self._main_code = None
        self._returned = False
        self._uncaught = False
        self._doubt = True
        sys.addaudithook(self._on_audit)

    @property
    def proof(self):
        """How main.py's normal end is known here, or None (then every
        program takes the interpreter's own way out)."""
        if self._monitoring is not None:
            return "sys.monitoring"
        return "backtrace" if self._stack_says_normal is not None else None

    def arm(self):
        """In the program's process, before main.py."""
        self._main_code = None
        self._returned = False
        self._uncaught = False
        self._doubt = self.proof is None
        if not self._doubt:
            self._register(self._at_exit)

    @staticmethod
    def _way_out_reader(ctypes, libc):
        """On 3.11: a function telling whether the C stack shows the normal
        way into the shutdown: a return address in Py_RunMain and none in
        Py_Exit. The two functions' address ranges are read once, here,
        from their ELF symbols. None where backtrace() or the symbols
        cannot be read (musl, 32 bits)."""
        try:
            backtrace = libc.backtrace
        except AttributeError:
            return None
        run_main = _function_range(ctypes, libc, "Py_RunMain")
        exit_ = _function_range(ctypes, libc, "Py_Exit")
        if run_main is None or exit_ is None:
            return None
        backtrace.argtypes = [ctypes.c_void_p, ctypes.c_int]
        frames = (ctypes.c_void_p * 64)()

        def normal():
            seen_run_main = False
            # Return addresses: after the call, so at most the function's end.
            for address in frames[: backtrace(frames, 64)]:
                if address is None:
                    continue
                if exit_[0] < address <= exit_[1]:
                    return False
                if run_main[0] < address <= run_main[1]:
                    seen_run_main = True
            return seen_run_main

        # The unwinder loads libgcc_s on first use: here, not in a case.
        normal()
        return normal

    def _from_the_interpreter(self):
        """Whether the code that raised the audit event (or called the
        function) is the interpreter's own, with no Python frame below."""
        try:
            self._getframe(2)
        except ValueError:
            return True
        return False

    def _on_audit(self, event, args):
        if event == "exec":
            if self._main_code is None and self._monitoring is not None and self._from_the_interpreter():
                self._watch_main(args[0])
        elif event == "sys.excepthook":
            # The interpreter reports an exception that left main.py with
            # its own hook; anything else is a program's own doing.
            if not self._from_the_interpreter():
                self._doubt = True
            elif args[0] is not self._sys.__excepthook__ or not issubclass(args[1], Exception):
                self._doubt = True  # a program's hook, or an interrupt
            else:
                self._uncaught = True
        elif event == "sys.addaudithook":
            self._doubt = True  # the shutdown's events are the program's to see

    def _watch_main(self, code):
        monitoring = self._monitoring
        self._main_code = code
        try:
            monitoring.use_tool_id(self._TOOL, "prompteval")
            monitoring.register_callback(self._TOOL, monitoring.events.PY_RETURN, self._on_return)
            monitoring.set_local_events(self._TOOL, code, monitoring.events.PY_RETURN)
        except Exception:
            self._doubt = True

    def _on_return(self, code, offset, value):
        if code is self._main_code:
            self._returned = True
            self._monitoring.free_tool_id(self._TOOL)

    def _ended_normally(self):
        if self._monitoring is not None:
            return self._returned or self._uncaught
        return self._stack_says_normal()

    def _at_exit(self):
        if not self._from_the_interpreter():
            return  # called by the program (atexit._run_exitfuncs())
        if self._doubt or self._environ.get("PYTHONINSPECT") or not self._ended_normally():
            return
        if self._left_to_finalize():
            return
        flushed = []
        for name in ("stdout", "stderr", "__stdout__", "__stderr__"):
            stream = getattr(self._sys, name, None)
            if stream is None or any(stream is f for f in flushed):
                continue
            flushed.append(stream)
            try:
                if stream.closed:
                    continue
                stream.flush()
            except BaseException:
                return
        self._fflush(None)  # what the C library's exit() would write
        self._exit(1 if self._uncaught else 0)

    def _left_to_finalize(self):
        """Whether the rest of the shutdown could run code of the program's
        or write: see the class."""
        gc = self._gc
        if gc.garbage or gc.get_debug():
            return True
        try:
            return self._finalizer_among(gc.get_objects())
        except BaseException:
            return True  # in doubt (a MemoryError, an attribute that raises)

    def _finalizer_among(self, made):
        quiet = set()
        for o in made:
            kind = type(o)
            if kind in quiet:
                continue
            if kind in self._proxies:
                return True  # its callback cannot be read
            if issubclass(kind, self._reference):
                callback = o.__callback__
                if callback is not None and o() is not None and not _harmless_callback(callback):
                    return True
                continue
            if issubclass(kind, type):
                # A class whose instances the collector does not track (no
                # __dict__, no GC): such an instance is found by its class.
                if not o.__flags__ & _TPFLAGS_HAVE_GC and getattr(o, "__del__", None) is not None:
                    return True
                continue
            if getattr(kind, "__del__", None) is None:
                quiet.add(kind)
                continue
            if kind.__module__ == "_io" and o.closed is True:
                continue  # a closed file: its finalizer does nothing
            if hasattr(o, "gi_suspended") and not o.gi_suspended and not o.gi_running:
                continue  # a generator finished or never started: closing runs nothing
            return True
        return False


def _watch_slot(pid_one, os, _signal):
    """The slot's process for the harness, once pid 1 of its namespace
    serves: kills pid 1 (and so every process of the namespace) when the
    harness hangs up, which pid 1 does not see while it waits for a
    program; exits as pid 1 did. Never returns."""
    import select

    handle = os.pidfd_open(pid_one)
    watch = select.poll()
    watch.register(_SERVER_FD, 0)  # hang-up and errors only
    watch.register(handle, select.POLLIN)
    while True:
        events = dict(watch.poll())
        if _SERVER_FD in events:
            try:
                os.kill(pid_one, _signal.SIGKILL)
            except OSError:
                pass
        if events:
            break
    status = os.waitpid(pid_one, 0)[1]
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


def _serve():
    """Serves cases until the harness hangs up; returns only in a case's
    program process, isolated and with every descriptor of ours closed."""
    import gc
    import os
    import _signal
    import _socket
    import ctypes
    import resource
    # What the tests' prelude uses, imported once here rather than per case.
    import atexit
    import fcntl
    import io
    import prompteval_proof

    def arm_proof():
        prompteval_proof.arm(0, (atexit, gc, io, fcntl))

    here = os.path.dirname(os.path.abspath(__file__))
    sock = _socket.socket(fileno=_SERVER_FD)
    config = {}
    for item in sock.recv(1 << 16).split(b"\0"):
        if item:
            key, _, value = item.partition(b"=")
            config[key.decode()] = value
    number = lambda key: int(config[key])
    _take_constants(config)
    case = config["case"]
    ruleset = number("ruleset")
    # What each case gets, as the harness describes it (case_spec.rs): the
    # mounts in order (source, target, type, flags, data, the stage a
    # failure is reported as; "=value" when present), and the rlimits.
    mounts = []
    for line in config["mounts"].split(b"\n"):
        if line:
            source, target, kind, flags, data, stage = line.split(b"\x1f")
            present = lambda field: field[1:] if field else None
            mounts.append((present(source), target, present(kind), int(flags), present(data), int(stage)))
    limits = []
    for item in config["rlimits"].split(b","):
        which, soft, hard = item.split(b":")
        limits.append((int(which), int(soft), int(hard)))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.unshare.argtypes = [ctypes.c_int]
    libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
    libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
    libc.syscall.restype = ctypes.c_long
    libc.capset.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    root = os.getuid() == 0

    # The slot's pid namespace (zygote.rs enter_slot_pids) takes this
    # process's first child as its pid 1: the server, from here on. This
    # process stays as the slot's for the harness (its pid, its exit), idle.
    pid_one = os.fork()
    if pid_one:
        _watch_slot(pid_one, os, _signal)
    # If the watcher goes (killed by the harness), the namespace goes too.
    libc.prctl(_PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0)

    def check(stage, result):
        if result == -1:
            raise _SetupError(stage, ctypes.get_errno())

    def report(fd, kind, value):
        message = kind.to_bytes(4, sys.byteorder, signed=True)
        message += value.to_bytes(4, sys.byteorder, signed=True)
        try:
            os.write(fd, message)
        except OSError:
            pass

    def wait_for(pid):
        # As pid 1, orphans of the program are ours to reap on the way.
        while True:
            try:
                found, status = os.waitpid(-1, 0)
            except ChildProcessError:
                return 9  # cannot happen for our own child: "killed"
            if found == pid:
                return status

    def end_case():
        """As the slot's pid 1: kills every other process of the namespace
        (what the program left: daemons, setsid, double forks) and reaps
        them, as the end of a case's own pid namespace would."""
        try:
            os.kill(-1, _signal.SIGKILL)
        except OSError:
            pass  # none left
        while True:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                return  # no child: nothing of the case is left
            except InterruptedError:
                pass

    def take_output(out, err):
        sock.detach()
        os.close(_SERVER_FD)
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.close(out)
        os.close(err)

    def map_ids():
        try:
            for name, data in (
                ("setgroups", b"deny"),
                ("uid_map", config["uid_map"]),
                ("gid_map", config["gid_map"]),
            ):
                fd = os.open("/proc/self/" + name, os.O_WRONLY | os.O_CLOEXEC)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
        except OSError as e:
            raise _SetupError(_NAMESPACES, e.errno)

    def prepare_case(script):
        """In the case's namespaces: its mounts, folder, main.py, rlimits."""
        for source, target, kind, flags, data, stage in mounts:
            check(stage, libc.mount(source, target, kind, flags, data))
        try:
            os.chdir(case)
        except OSError as e:
            raise _SetupError(_ENTER_FOLDER, e.errno)
        try:
            target = os.open("main.py", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            offset = 0
            while True:
                chunk = os.pread(script, 1 << 16, offset)
                if not chunk:
                    break
                view = memoryview(chunk)
                while view:
                    view = view[os.write(target, view):]
                offset += len(chunk)
            os.close(target)
            os.close(script)
        except OSError as e:
            raise _SetupError(_WRITE_SCRIPT, e.errno)
        try:
            for which, soft, hard in limits:
                resource.setrlimit(which, (soft, hard))
        except (OSError, ValueError) as e:
            raise _SetupError(_RLIMITS, getattr(e, "errno", None) or 5)

    # The next fork gets pid 2, as a case's program has in the fresh paths:
    # pid 1 writes the namespace's last pid (CAP_SYS_ADMIN over the slot's
    # user namespace, kept through the exec: zygote.rs enter_slot_pids).
    try:
        last_pid = os.open("/proc/sys/kernel/ns_last_pid", os.O_WRONLY | os.O_CLOEXEC)
        os.pwrite(last_pid, b"1", 0)
    except OSError:
        last_pid = -1

    def program(out, err, script, pipe):
        """The program's process: its own user, mount and IPC namespaces
        (the pid and network namespaces are the slot's), then what
        zygote.rs's run_case does, in the same order."""
        # The harness kills the program on timeout through this pidfd. Sent
        # from here, so that the server blocks in its wait at once after
        # the fork: every page it touched while this process shares them
        # would be copied, and on a busy core this process would wait.
        rights = []
        try:
            handle = os.pidfd_open(os.getpid())
            rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, handle.to_bytes(4, sys.byteorder))]
        except OSError:
            pass
        try:
            sock.sendmsg([b"program"], rights)
        except OSError:
            pass
        take_output(out, err)
        check(_NAMESPACES, libc.unshare(_CASE_NAMESPACES))
        map_ids()
        prepare_case(script)
        try:
            # Its own session and group: killpg(0) reaches only its own.
            os.setsid()
        except OSError as e:
            raise _SetupError(_REAPER, e.errno)
        # A fresh start's SIGINT handler (this server, as pid 1, has none).
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)

    def program_setup():
        """In the program: the rest of what execve and the fresh path do."""
        if ruleset >= 0:
            check(_LANDLOCK, libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
            check(_LANDLOCK, libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0))
        if not root:
            # execve drops the capabilities a user namespace gave a
            # process that is not root in it; no execve here, so drop them.
            header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION, 0)
            data = (ctypes.c_uint32 * 6)()
            check(_HAND_OVER, libc.capset(header, data))

    way_out = _WayOut(ctypes, libc)
    global _OWN_SITE
    own_site = _OWN_SITE = _installation_sitecustomize(here)
    expected_modules = _leave_no_trace(here, own_site)
    gc.freeze()
    # As pid 1 a default disposition shields this server from a program's
    # signals (the kernel drops them); a program gets Python's back.
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
    # The value: which fast paths work on this interpreter (bits 8-11,
    # zygote.rs WarmPaths), which the harness records and logs.
    paths = (way_out.proof == "sys.monitoring") << 8 | (way_out.proof == "backtrace") << 9
    paths |= (last_pid >= 0) << 11
    report(_SERVER_FD, _READY, paths)
    # No child is left between cases (end_case reaps them all), so nothing
    # is reaped here.
    while True:
        try:
            data, ancillary, _, _ = sock.recvmsg(16, _socket.CMSG_SPACE(4 * 5), _socket.MSG_CMSG_CLOEXEC)
        except InterruptedError:
            continue
        except OSError:
            os._exit(0)
        if not data:
            os._exit(0)
        fds = []
        for level, kind, payload in ancillary:
            if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
                usable = len(payload) - len(payload) % 4
                fds += [int.from_bytes(payload[i : i + 4], sys.byteorder) for i in range(0, usable, 4)]
        # stdout, stderr, main.py, the report pipe, and a tests case's proof.
        if len(fds) not in (4, 5):
            for fd in fds:
                os.close(fd)
            continue
        out, err, script, pipe = fds[:4]
        proof = fds[4] if len(fds) == 5 else -1
        if last_pid >= 0:
            try:
                os.pwrite(last_pid, b"1", 0)
            except OSError:
                pass
        try:
            pid = os.fork()
        except OSError as e:
            report(pipe, _REPORT_FAILED, (_FORK << 16) | (e.errno & 0xFFFF))
            pid = -1
        if pid == 0:
            try:
                program(out, err, script, pipe)
                program_setup()
                if proof >= 0:
                    os.dup2(proof, 0)  # as the fresh paths get it: on stdin
                os.closerange(3, 1 << 30)
                return way_out, arm_proof, expected_modules, gc.freeze
            except _SetupError as e:
                report(pipe, _REPORT_FAILED, (e.stage << 16) | ((e.errno or 5) & 0xFFFF))
            except BaseException as e:
                # A fault of this server, not of a program: say what, on
                # the case's stderr (or the server's log before the dup2).
                try:
                    lines, tb = [], e.__traceback__
                    while tb is not None:
                        lines.append(tb.tb_lineno)
                        tb = tb.tb_next
                    text = "prompteval warm interpreter: %r at lines %s\n" % (e, lines)
                    os.write(2, text.encode())
                except BaseException:
                    pass
                report(pipe, _REPORT_FAILED, (_HAND_OVER << 16) | 5)
            os._exit(127)
        if pid > 0:
            status = wait_for(pid)
        else:
            # No program: the harness still waits for a message.
            try:
                sock.sendmsg([b"program"])
            except OSError:
                os._exit(0)
        for fd in fds:
            if fd != pipe:
                os.close(fd)
        if pid > 0:
            end_case()
            report(pipe, _REPORT_STATUS, status)
        os.close(pipe)


def _installation_sitecustomize(here):
    """Whether the installation has a sitecustomize of its own, which each
    program then imports as a fresh start does. Without one, a fresh
    start's import of it fails (site silences the error); in a fork that
    search cost a quarter of a millisecond per case (80 copied pages,
    measured), so it is made once here: its only trace, the finders it
    caches for the entries of sys.path, is kept (_hand_over). In doubt,
    the program imports it."""
    try:
        finder = sys.modules["_frozen_importlib_external"].PathFinder
        entries = [entry for entry in sys.path if entry != here]
        for entry in entries:
            finder._path_importer_cache(entry)
        return finder.find_spec("sitecustomize", entries) is not None
    except Exception:
        return True


# The modules the server imported, out of sys.modules but alive (its
# functions use them): taken out once, not in each case's process, where
# every module's reference count written is a page copied.
_KEPT = []


def _leave_no_trace(here, own_site):
    """Leaves sys.modules, sys.path, the importer cache and the environment
    as a fresh start has them at this point, once, in the server; returns
    how many modules that leaves."""
    import os

    for name in list(sys.modules):
        if name not in _FRESH_MODULES:
            _KEPT.append(sys.modules.pop(name))
    while here in sys.path:
        sys.path.remove(here)
    # Without a sitecustomize of the installation's, the failed search for
    # one adds a finder for each entry of sys.path not cached yet, in
    # sys.path's order: those made at the server's start stand for them.
    searched = () if own_site else sys.path
    cache = sys.path_importer_cache
    for key in list(cache):
        if key == here or (key not in _FRESH_IMPORTERS and key not in searched):
            del cache[key]
    for entry in searched:
        if entry not in _FRESH_IMPORTERS and entry in cache:
            cache[entry] = cache.pop(entry)
    if not own_site:
        # The interpreter then asks the path hooks whether main.py is an
        # importer (a zip, a folder) and caches None for it: the same key
        # (the slot's case folder, this process's working directory, is
        # every case's) cached here spares each case the zipimport code and
        # its two exceptions. After a sitecustomize of the installation's,
        # which could add entries before it, the interpreter makes it.
        cache[os.path.join(os.getcwd(), "main.py")] = None
    os.environ.pop("PYTHONPATH", None)
    os.environ.pop("LD_BIND_NOW", None)
    return len(sys.modules)


def _hand_over(way_out, arm_proof, expected_modules, freeze):
    """Leaves the interpreter as a fresh start has it at this point (the
    server did the rest once: _leave_no_trace). Imports nothing: what the
    server imported is out of sys.modules, and would be imported anew."""
    way_out.arm()
    # A tests case's proof (tests_proof.py), armed from stdin as the fresh
    # paths' sitecustomize arms it, with the modules the server imported.
    arm_proof()
    if len(sys.modules) != expected_modules:
        for name in list(sys.modules):
            if name not in _FRESH_MODULES:
                del sys.modules[name]
    # Everything that exists now (the start-up's objects, and what is left
    # of the server: this module, its frames' garbage) goes to gc's
    # permanent generation: the program's collections, and the one at
    # shutdown, then skip them (in a fork, walking them would copy every
    # page: measured, half of a case's CPU time), and gc.get_objects()
    # does not list the server's leftovers.
    freeze()
    # Except __main__: the program's functions hold its dict and its dict
    # holds them, a cycle that the collection at shutdown must be able to
    # free first (it runs the __del__ of what the program left there, as a
    # fresh start does). A new module with the same dict, in the same place.
    main = type(sys)("__main__")
    main.__dict__.update(sys.modules["__main__"].__dict__)
    sys.modules["__main__"] = main


# A fresh start imports the installation's own sitecustomize here, if any;
# ImportError(name="sitecustomize") when there is none is silenced by site
# (the search already made: _installation_sitecustomize).
_hand_over(*_serve())
del sys.modules["sitecustomize"]
if not _OWN_SITE:
    raise ModuleNotFoundError("No module named 'sitecustomize'", name="sitecustomize")
import sitecustomize  # noqa: E402,F401
