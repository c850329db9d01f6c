# The driver of a sandboxed Python worker: it sets its seccomp filter and
# limits, waits for one job on stdin (a JSON object: op "run" with code and
# params, or op "check" with code), runs it and writes one JSON answer to
# stdout, then exits. The job's code cannot lift what was set before it.
# As a workspace's fork server (zygote mode, zygote.go) it runs no job
# itself: for each it is sent the pipes of, it forks a child that sets the
# same filter and limits and serves that job on those pipes.
# It imports only what every run needs: an interpreter's start is what
# bounds how many runs a second a core serves, and the standard library a
# run's code imports costs that run alone (asyncio only for an async main
# that awaits). JSON goes through json's C part: the json package imports
# re, which doubles the cost of a start.
import _json, io, os, resource, sys, types


class _Decoding:
    """What json's C scanner reads off its decoder: json.loads' defaults."""
    strict, object_hook, object_pairs_hook, parse_float, parse_int, parse_constant, memo = \
        True, None, None, float, int, None, {}


def loads(line):
    return _json.make_scanner(_Decoding)(line.strip(), 0)[0]


def dumps(obj):
    """json.dumps(obj, ensure_ascii=False, default=str, allow_nan=False),
    compact."""
    encode = _json.make_encoder({}, str, _json.encode_basestring, None, ":", ",", False, False, False)
    return "".join(encode(obj, 0))


def lockdown(filter_hex):
    """Returns what makes the process non-dumpable (no other process of the
    sandbox may open its /proc/<pid>/mem, environ or fds) and then, unless
    told not to, installs the seccomp filter the runner built (see
    seccomp.go). It is made ahead, so that a fork server's child pays
    neither ctypes' import nor the filter's build."""
    import ctypes
    prog = bytes.fromhex(filter_hex)

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    fprog = SockFprog(len(prog) // 8, prog)
    PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 4, 38, 22, 2

    def install(filtered=True):
        steps = [("dumpable", (PR_SET_DUMPABLE, 0))]
        if filtered:
            steps += [("no_new_privs", (PR_SET_NO_NEW_PRIVS, 1)),
                      ("seccomp", (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog)))]
        for what, args in steps:
            if libc.prctl(*args, *(0,) * (5 - len(args))) != 0:  # prctl reads five: the rest must be 0
                raise OSError(ctypes.get_errno(), what)
    return install


# The kernel counts RLIMIT_NPROC per host user: every thread of that user
# (the server's own, every sandbox's) counts against it, so the cap bounds
# what one run can add to the host's processes, not a sandbox's share.
THREADS = 1024


def limit(mem, cpu):
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_NPROC, (THREADS, THREADS))  # binds only when the host's user is not root
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))  # no file writes
    resource.setrlimit(resource.RLIMIT_NOFILE, (16, 16))


REFUSED = ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "subprocess.",
           "pty.", "ctypes.", "socket.", "os.chroot", "os.setxattr", "shutil.")
READABLE = ("/usr/", "/dev/null/", "/dev/urandom/")


def audit(event, args):
    """Refuses, in Python, what the sandbox stops in the kernel anyway: a
    second layer with a clearer message."""
    if event == "open":
        path, mode, flags = args
        writes = (mode and any(c in mode for c in "wax+")) or (flags or 0) & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)
        if isinstance(path, int):
            return
        name = os.path.normpath(os.fsdecode(path))
        if writes or not (name + "/").startswith(READABLE):
            raise PermissionError("code nodes cannot %s %s" % ("write" if writes else "read", name))
    elif event == "socket.__new__" and args[1] == 1:  # AF_UNIX: asyncio's socketpair
        return
    elif event.startswith(REFUSED):
        raise PermissionError("code nodes cannot use %s" % event)


class Logs(io.TextIOBase):
    """What the code prints: the first LOGS characters, then a count of the
    rest, so that printing in a loop cannot fill the memory."""
    LOGS = 8192

    def __init__(self):
        self.parts, self.kept, self.dropped = [], 0, 0

    def writable(self):
        return True

    def write(self, s):
        room = self.LOGS - self.kept
        if room > 0:
            self.parts.append(s[:room])
            self.kept += min(room, len(s))
        self.dropped += max(0, len(s) - max(room, 0))
        return len(s)

    def getvalue(self):
        more = "\n... (%d more characters not kept)\n" % self.dropped if self.dropped else ""
        return "".join(self.parts) + more


class Args:
    def __init__(self, params):
        self.params = params


def answer(out, obj):
    try:  # one line: JSON escapes newlines; NaN and infinities are not JSON
        text = dumps(obj)
    except (ValueError, TypeError, RecursionError) as e:
        text = dumps({"error": "main returned a value JSON cannot hold: %s" % e, "logs": obj.get("logs", "")})
    out.write(text + "\n")
    out.flush()


def line_of(exc):
    if isinstance(exc, SyntaxError):
        return exc.lineno or 0
    line, tb = 0, exc.__traceback__  # no traceback module: it may not import when memory ran out
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<code>":
            line = tb.tb_lineno  # the innermost frame of the code wins
        tb = tb.tb_next
    return line


def finish(coro, source):
    """The result of an async main. One whose code never awaits cannot
    suspend: it runs to its end without an event loop (asyncio, the most
    costly import, stays unloaded); other code gets asyncio.run."""
    if "await" in source or "async for" in source or "async with" in source:
        import asyncio
        return asyncio.run(coro)
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise RuntimeError("main suspended without an await in its code; write the await in main's code")


def run(job, out, logs):
    scope = {"__name__": "__main__", "Args": Args, "Output": dict}
    try:
        code = compile(job["code"], "<code>", "exec")
        if job.get("op") == "check":
            return answer(out, {"ok": True})
        exec(code, scope)
    except BaseException as e:
        return answer(out, {"error": "%s: %s" % (type(e).__name__, e), "line": line_of(e), "logs": logs.getvalue()})
    main = scope.get("main")
    if not callable(main):
        return answer(out, {"error": "the code defines no function main(args)", "line": 0})
    try:
        result = main(Args(job.get("params") or {}))
        if isinstance(result, types.CoroutineType):
            result = finish(result, job["code"])
    except BaseException as e:
        return answer(out, {"error": "%s: %s" % (type(e).__name__, e), "line": line_of(e), "logs": logs.getvalue()})
    answer(out, {"result": result, "logs": logs.getvalue()})


def warm():
    """Does once, while the sandbox waits in the pool, what Python sets up
    lazily on first use: the first compile() builds the AST's types (some
    1.5 ms of CPU, 30 times a trivial node's compile), and JSON's first
    encoding and decoding."""
    scope = {}
    exec(compile("def main(args):\n    return {'v': [1, 'a']}\n", "<warm>", "exec"), scope)
    dumps(loads(dumps(scope["main"](None))))


def contain(install, mem, cpu, hook):
    """Sets, in the process that will run a job, what its code cannot lift."""
    install()
    limit(mem, cpu)
    if hook:
        sys.addaudithook(audit)


def serve():
    """Reads one job on stdin, answers it on stdout and exits."""
    out = sys.stdout
    job = loads(sys.stdin.readline())
    logs = Logs()
    sys.stdout = sys.stderr = logs
    sys.stdin = io.StringIO()
    run(job, out, logs)
    os._exit(0)  # no interpreter teardown: the answer is out


def zygote(ctl, install, mem, cpu, hook):
    """Serves a workspace's runs: each message on ctl (fd 3, a unix socket)
    carries the two ends of one run's pipes, its job to read and its answer
    to write; a child forked for it answers on them and the server replies
    with the child's pid. The server holds no job's data: it closes its
    copies of the pipes before it reads the next message, so a child has
    only its own. It ends when ctl closes."""
    import _socket, signal
    install(filtered=False)  # non-dumpable, like its children: they cannot read its memory
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the children
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as pid 1, it then ignores every signal sent from inside
    sock = _socket.socket(fileno=ctl)
    sock.send(b"R")
    while True:
        msg, anc, _, _ = sock.recvmsg(1, _socket.CMSG_SPACE(8))
        if not msg:
            os._exit(0)
        fds = [int.from_bytes(data[i:i + 4], sys.byteorder)
               for level, kind, data in anc if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS
               for i in range(0, len(data) - 3, 4)]
        try:
            pid = os.fork() if len(fds) == 2 else -1
        except OSError:  # no memory or process ids: answer so, not end the runs of the children
            pid = -1
        if pid == 0:
            try:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                sock.close()
                os.dup2(fds[0], 0)
                os.dup2(fds[1], 1)
                os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
                contain(install, mem, cpu, hook)
                serve()
            finally:
                os._exit(70)  # never back into the server's loop
        for fd in fds:
            os.close(fd)
        sock.send(b"%d" % pid)


def main():
    mem, cpu, filter_hex, hook = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4] == "audit"
    install = lockdown(filter_hex)
    warm()  # before ready: what it costs is off a run's path
    if sys.argv[5:] == ["zygote"]:
        return zygote(3, install, mem, cpu, hook)
    contain(install, mem, cpu, hook)  # before the job arrives: a run waits only for the job itself
    sys.stdout.write("R")  # ready
    sys.stdout.flush()
    serve()


main()
