#!/usr/bin/env python3
"""A tiny HTTP proxy for the MCP conformance runs: forwards every request to the upstream endpoint with
'Authorization: Bearer <token>' added (the suite sends none), and streams the answer back (SSE included).
usage: bearer-proxy.py LISTEN_PORT UPSTREAM_PORT TOKEN"""
import http.client, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LISTEN, UPSTREAM, TOKEN = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection", "content-length"}

class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP and k.lower() != "authorization"}
        headers["Authorization"] = "Bearer " + TOKEN
        if body is not None:
            headers["Content-Length"] = str(len(body))
        upstream = http.client.HTTPConnection("127.0.0.1", UPSTREAM, timeout=300)
        try:
            upstream.request(self.command, self.path, body=body, headers=headers)
            answer = upstream.getresponse()
            self.send_response_only(answer.status, answer.reason)
            for k, v in answer.getheaders():
                if k.lower() not in HOP:
                    self.send_header(k, v)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            while True:
                chunk = answer.read1(65536)
                if not chunk:
                    break
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            upstream.close()
    do_GET = do_POST = do_DELETE = do_OPTIONS = do_PUT = handle_any

ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", LISTEN), Proxy).serve_forever()
