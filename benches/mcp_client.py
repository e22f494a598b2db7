"""The one stdio MCP client the bench scripts share: start a server command, shake hands,
send requests and read each one's answer (notifications and other ids skipped).

The server serves in-process (`PRINTDEX_SHARED=off`) unless the environment given (or this
process's) sets `PRINTDEX_SHARED`: a bench measures one process's own work by default, and
`PRINTDEX_SHARED=on` measures sessions attached to a shared server."""
import json
import os
import shlex
import subprocess


class Client:
    def __init__(self, cmd, cwd, name="bench", stderr=None, env=None):
        env = dict(os.environ if env is None else env)
        env.setdefault("PRINTDEX_SHARED", "off")
        self.proc = subprocess.Popen(shlex.split(cmd), cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=stderr if stderr is not None else subprocess.DEVNULL,
                                     text=True, env=env)
        self._ids = iter(range(1, 10**9))
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": name, "version": "1"}})
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    @property
    def pid(self):
        return self.proc.pid

    def _send(self, message):
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        """The whole answer message (`result` or `error`) to one request."""
        rid = next(self._ids)
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            msg = json.loads(self.proc.stdout.readline())
            if msg.get("id") == rid:
                return msg

    def result(self, method, params):
        """The `result` of one request; an error ends the script."""
        msg = self.request(method, params)
        if "error" in msg:
            raise SystemExit(f"{method} {params}: {msg['error']}")
        return msg["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()
