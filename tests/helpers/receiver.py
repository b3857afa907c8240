"""An HTTP receiver on loopback for the notice channels and Web Push: it records every
request and answers with a chosen status."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    """An HTTP server on a free loopback port that records every request and answers with
    ``status`` (and ``headers``)."""

    def __init__(self, status=200, headers=None):
        self.requests, self.status, self.headers = [], status, headers or {}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                receiver.requests.append({"method": self.command, "path": self.path,
                                          "headers": dict(self.headers),
                                          "body": self.rfile.read(length)})
                self.send_response(receiver.status)
                for k, v in receiver.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            do_POST = do_PUT = _any

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
