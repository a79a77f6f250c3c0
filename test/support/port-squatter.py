"""A local process taking a TCP port every way a squatter could, for the port-owner tests.

Usage: port-squatter.py PORT SERVE_MS ANSWER
Tries the port plain, on every interface, with SO_REUSEADDR and with SO_REUSEPORT, and prints
{"binds": {way: "bound" | the error}}. With SERVE_MS > 0, the first bind that worked is kept as an
HTTP server for that long, recording each request's first line and whether it carried an
Authorization header, and answering with ANSWER ("sse": an event stream's first state, as the kiosk
page's stream would; "503": an empty 503); then prints {"heard": [...]}. Never the header's value.
"""
import json
import socket
import sys
import time

ANSWERS = {
    "sse": b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nevent: state\ndata: {}\n\n",
    "503": b"HTTP/1.1 503 x\r\ncontent-length: 0\r\n\r\n",
}

port, serve_ms, answer = int(sys.argv[1]), int(sys.argv[2]), ANSWERS[sys.argv[3]]
got, kept = {}, None
for name, host, opts in [("loopback", "127.0.0.1", []), ("any", "0.0.0.0", []), ("reuseaddr", "127.0.0.1", [socket.SO_REUSEADDR]),
                         ("reuseport", "127.0.0.1", [socket.SO_REUSEADDR, socket.SO_REUSEPORT])]:
    s = socket.socket()
    for o in opts:
        s.setsockopt(socket.SOL_SOCKET, o, 1)
    try:
        s.bind((host, port))
        s.listen(16)
        got[name] = "bound"
        if kept is None:
            kept = s
        else:
            s.close()
    except OSError as e:
        got[name] = e.strerror
        s.close()
print(json.dumps({"binds": got}), flush=True)
if kept is not None and serve_ms > 0:
    kept.settimeout(0.2)
    heard, end = [], time.time() + serve_ms / 1000
    while time.time() < end:
        try:
            c, _ = kept.accept()
        except OSError:
            continue
        c.settimeout(1)
        try:
            head = c.recv(4096).decode("latin1")
        except OSError:
            head = ""
        auth = [h for h in head.split("\r\n") if h.lower().startswith("authorization:")]
        heard.append({"request": head.split("\r\n")[0], "authorization": bool(auth)})
        c.sendall(answer)
        c.close()
    print(json.dumps({"heard": heard}), flush=True)
