#!/usr/bin/env python3
"""A fault-injecting HTTP file server for the download tests (loopback only).

usage: faultserver.py ROOT PORTFILE LOGFILE [LIFETIME_S]

Serves files under ROOT on 127.0.0.1 (port written to PORTFILE) and logs one
line per request to LOGFILE. The query string picks the fault:
  drop=N       send at most N body bytes per connection, then hang up
  status=C     answer HTTP C (with fail=K: only the first K requests)
  stall=S      send stall_at bytes (default 1000), then sleep S seconds
  norange=1    ignore Range: always 200 with the whole file
  corrupt=1    flip one byte in the middle of the body
  times=K      apply drop/stall to the first K requests only
  changed=1    a new ETag on every request (the file "changed"), so an
               If-Range from an earlier response gets the whole file
Responses carry an ETag; a Range whose If-Range differs from it is ignored.
It also answers proxy-style requests ("GET http://host/path"), so tests can
point http_proxy at it. It exits by itself after LIFETIME_S (default 120).
"""
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT, PORTFILE, LOGFILE = sys.argv[1], sys.argv[2], sys.argv[3]
LIFETIME = float(sys.argv[4]) if len(sys.argv) > 4 else 120.0
counts = {}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        with open(LOGFILE, "a") as log:
            log.write("%s %s range=%s if-range=%s\n" % (
                self.command, self.path, self.headers.get("Range", "-"),
                self.headers.get("If-Range", "-")))
        url = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        with lock:
            counts[self.path] = counts.get(self.path, 0) + 1
            nth = counts[self.path]
        if "status" in q and nth <= int(q.get("fail", "1000000")):
            body = b"fault\n"
            self.send_response(int(q["status"]))
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            return
        path = os.path.join(ROOT, urllib.parse.unquote(url.path).lstrip("/"))
        if ".." in url.path or not os.path.isfile(path):
            self.send_error(404)
            return
        with open(path, "rb") as f:
            data = f.read()
        if "corrupt" in q and data:
            mid = len(data) // 2
            data = data[:mid] + bytes([data[mid] ^ 0xFF]) + data[mid + 1:]
        st = os.stat(path)
        etag = '"%x-%x%s"' % (int(st.st_mtime), st.st_size,
                              ("-%d" % nth) if "changed" in q else "")
        start = 0
        rng = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        if if_range is not None and if_range != etag:
            rng = None
        if rng and "norange" not in q and rng.startswith("bytes="):
            first = rng[6:].split("-")[0]
            start = int(first) if first else 0
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % len(data))
                self.send_header("Content-Length", "0")
                self.send_header("Connection", "close")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d"
                             % (start, len(data) - 1, len(data)))
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("ETag", etag)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Connection", "close")
        self.end_headers()
        if nth > int(q.get("times", "1000000")):
            q.pop("stall", None)
            q.pop("drop", None)
        try:
            if "stall" in q:
                at = int(q.get("stall_at", "1000"))
                self.wfile.write(body[:at])
                self.wfile.flush()
                time.sleep(float(q["stall"]))
                return
            if "drop" in q:
                self.wfile.write(body[:int(q["drop"])])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    tmp = PORTFILE + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, PORTFILE)
    threading.Timer(LIFETIME, srv.shutdown).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()
