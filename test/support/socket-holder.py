#!/usr/bin/env python3
"""What systemd does for pickup-station-kiosk.socket, for tests on a machine without systemd as
PID 1: hold a listening TCP socket for as long as this runs (SO_SNDBUF as the unit's SendBuffer=,
the unit's Backlog=) and run the daemon with it as fd 3, the way sd_listen_fds(3) describes
(LISTEN_FDS=1, LISTEN_FDNAMES=kiosk, LISTEN_PID=the daemon's pid).

    socket-holder.py PORT SNDBUF [--name NAME] -- COMMAND [ARG...]

NAME is the socket's FileDescriptorName= (default kiosk; the technician port's unit says technician).

SIGUSR1 stops the daemon (SIGTERM, waits for it) and leaves the port held; SIGUSR2 starts it
again; SIGTERM stops it and exits. Each step is one line on stdout, JSON with "holder": listening
(with the port), started (with the daemon's pid), exited (with its code).
"""
import json
import os
import signal
import socket
import sys


def say(**fields):
    sys.stdout.write(json.dumps({"holder": fields.pop("what"), **fields}) + "\n")
    sys.stdout.flush()


def main():
    port, sndbuf = int(sys.argv[1]), int(sys.argv[2])
    dashes = sys.argv.index("--")
    options = sys.argv[3:dashes]
    name = options[options.index("--name") + 1] if "--name" in options else "kiosk"
    command = sys.argv[dashes + 1:]
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    s.bind(("127.0.0.1", port))
    s.listen(16)
    say(what="listening", port=s.getsockname()[1])
    child = {"pid": None}
    watched = {signal.SIGUSR1, signal.SIGUSR2, signal.SIGTERM, signal.SIGCHLD}
    # Taken one at a time by sigtimedwait, never by a handler racing the loop.
    signal.pthread_sigmask(signal.SIG_BLOCK, watched)

    def start():
        pid = os.fork()
        if pid == 0:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, watched)
            os.dup2(s.fileno(), 3)
            os.set_inheritable(3, True)
            env = dict(os.environ, LISTEN_FDS="1", LISTEN_FDNAMES=name, LISTEN_PID=str(os.getpid()))
            os.execvpe(command[0], command, env)
        child["pid"] = pid
        say(what="started", pid=pid)

    def stop():
        pid = child["pid"]
        if pid is None:
            return
        os.kill(pid, signal.SIGTERM)
        _, status = os.waitpid(pid, 0)
        child["pid"] = None
        say(what="exited", code=os.waitstatus_to_exitcode(status))

    start()
    while True:
        info = signal.sigtimedwait(watched, 1.0)
        signo = info.si_signo if info is not None else None
        if signo == signal.SIGTERM:
            break
        if signo == signal.SIGUSR1:
            stop()
        if signo == signal.SIGUSR2 and child["pid"] is None:
            start()
        if child["pid"] is not None:
            pid, status = os.waitpid(child["pid"], os.WNOHANG)
            if pid != 0:
                child["pid"] = None
                say(what="exited", code=os.waitstatus_to_exitcode(status))
    stop()


if __name__ == "__main__":
    main()
