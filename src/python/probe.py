import _socket, os, sys
# Only built-in modules: json and socket would cost a run's start 18 ms of
# imports (re, enum, selectors) in the first slot before any case.
def attempt(f):
    try:
        f()
        return "ok"
    except OSError as e:
        return e.strerror or type(e).__name__
def connect():
    s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    try:
        s.settimeout(2)
        s.connect(("127.0.0.1", {port}))
    finally:
        s.close()
def udp():
    s = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
    try:
        s.sendto(b"x", ("127.0.0.1", {port}))
    finally:
        s.close()
def write_cwd():
    with open("probe.txt", "w") as f:
        f.write("x")
def js(v):
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + ",".join(js(x) for x in v) + "]"
    return '"' + "".join(c if c >= " " and c not in '"\\' else "\\u%04x" % ord(c) for c in v) + '"'
st = os.statvfs(".")
found = {
    "pid": os.getpid(),
    "ppid": os.getppid(),
    "loopback": attempt(connect),
    "udp": attempt(udp),
    "canary": attempt(lambda: open({canary}).read()),
    "tmp": attempt(lambda: os.listdir("/tmp")),
    "write_cwd": attempt(write_cwd),
    "env": sorted(os.environ),
    "folder_fs_bytes": st.f_blocks * st.f_frsize,
    "hash_seed_fixed": sys.flags.hash_randomization == 0,
}
print("{" + ",".join(js(k) + ":" + js(v) for k, v in found.items()) + "}")
