"""Starts `clport serve` on a free loopback port for a test and stops it again.

The server prints "listening on http://HOST:PORT" on stderr at once and answers GET /health with
503 until the model is loaded; Server waits for 200. Its stderr is kept (server.log()) for the
messages of a failed check.
"""
import json
import os
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request


class Server:
    def __init__(self, clport, model, args=(), load_timeout=600):
        args = list(args)
        # The key the server asks for (--api-key), sent with every request of request().
        self.api_key = args[args.index("--api-key") + 1] if "--api-key" in args else None
        # --wait-for-device: the tests are about serving, on the device they name from the first
        # request, also where it was never set up (a first start would serve from the CPU path
        # meanwhile and move to the device mid-test).
        self.cmd = [clport, "serve", "-m", model, "--port", "0", "--wait-for-device"] + list(args)
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.port_ready = threading.Event()
        self.url = None
        self.reader = threading.Thread(target=self._read_stderr, daemon=True)
        self.reader.start()
        if not self.port_ready.wait(60) or self.url is None:
            self.kill()
            raise RuntimeError("clport serve did not say where it listens:\n" + self.log())
        deadline = time.time() + load_timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("clport serve exited with %d while loading:\n%s" % (self.proc.returncode, self.log()))
            status, _ = self.get("/health")
            if status == 200:
                return
            time.sleep(0.2)
        self.kill()
        raise RuntimeError("the model did not load within %d s:\n%s" % (load_timeout, self.log()))

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))
            if self.url is None and "listening on http://" in line:
                self.url = line.split("listening on ", 1)[1].strip()
                self.port_ready.set()
        self.port_ready.set()

    def log(self):
        return "\n".join(self.lines)

    def request(self, method, path, body=None, headers=None, raw=None):
        """(status, parsed JSON or text) of one request; never raises on an HTTP error status."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        headers = dict(headers or {})
        if self.api_key and "Authorization" not in headers:
            headers["Authorization"] = "Bearer " + self.api_key
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        if data is not None and "Content-Type" not in headers:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                status, text = r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def get(self, path, headers=None):
        try:
            return self.request("GET", path, headers=headers)
        except (urllib.error.URLError, ConnectionError):
            return 0, None

    def post(self, path, body, headers=None):
        return self.request("POST", path, body=body, headers=headers)

    def metrics(self):
        """The Prometheus text as {name or name{labels}: value}."""
        status, text = self.get("/metrics")
        values = {}
        for line in text.splitlines() if status == 200 else []:
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                values[name] = float(value)
        return values

    def terminate(self, timeout=15):
        """SIGTERM; returns the exit code (None if it did not exit in time, then killed)."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.terminate()
        self.reader.join(5)
