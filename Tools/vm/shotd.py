#!/usr/bin/env python3
"""Host-side screendump service for run-in-vm.sh.
usage: shotd.py QMP_SOCKET IO_DIR
Polls IO_DIR for shot-NAME.req; for each, runs QMP screendump to IO_DIR/shot-NAME.ppm
(extra arguments, e.g. {"device": "video0", "head": 0, "format": "png"}, may be given as a
JSON object in the .req file) and writes shot-NAME.done atomically: "ok <host ms>" or
"error <message>". Exits when qemu closes the QMP socket."""
import json, os, socket, sys, time

sock_path, io = sys.argv[1], sys.argv[2]
log = lambda *a: print("shotd:", *a, file=sys.stderr, flush=True)

s = None
for _ in range(3000):                      # qemu may take a while to create the socket
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(sock_path); break
    except OSError:
        s.close(); s = None; time.sleep(0.02)
if s is None:
    log("no QMP socket"); sys.exit(1)
f = s.makefile("rwb", buffering=0)

def recv():
    while True:
        line = f.readline()
        if not line:
            raise EOFError
        msg = json.loads(line)
        if "event" in msg:
            continue
        return msg

def cmd(name, args=None):
    m = {"execute": name}
    if args:
        m["arguments"] = args
    f.write(json.dumps(m).encode() + b"\n")
    return recv()

recv()                                      # greeting
cmd("qmp_capabilities")
log("ready")
try:
    while True:
        reqs = sorted(n for n in os.listdir(io) if n.startswith("shot-") and n.endswith(".req"))
        if not reqs:
            time.sleep(0.005)
            continue
        tseen = time.monotonic()
        for n in reqs:
            name = n[:-4]
            rp = os.path.join(io, n)
            try:
                extra = open(rp).read().strip()
                args = json.loads(extra) if extra else {}
            except Exception as e:
                args = {}
            os.unlink(rp)
            args["filename"] = os.path.join(io, name + ".ppm")
            if args.get("format") == "png":
                args["filename"] = os.path.join(io, name + ".png")
            t0 = time.monotonic()
            r = cmd("screendump", args)
            ms = (time.monotonic() - t0) * 1000
            res = "ok %.1f\n" % ms if "return" in r else "error %s\n" % json.dumps(r.get("error"))
            log(name, res.strip(), "seen->done %.1f ms" % ((time.monotonic() - tseen) * 1000))
            tmp = os.path.join(io, "." + name + ".done.tmp")
            with open(tmp, "w") as o:
                o.write(res)
            os.rename(tmp, os.path.join(io, name + ".done"))
except (EOFError, ConnectionError, BrokenPipeError):
    pass
