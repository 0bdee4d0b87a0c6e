"""Drive a real headless Chromium over the DevTools protocol, as a user would.

Usage: python3 cdp.py CHROMIUM < job.json > results.json

job.json: {"url": "file:///...", "steps": ["js expression", ...],
           "screenshot": optional path}
Each step is evaluated in the page after it has loaded (an expression that
returns a promise is awaited); the results, in order, go to stdout as a JSON
list. A step that throws is reported as {"error": message}.

The browser is spoken to over --remote-debugging-pipe (file descriptors 3
and 4, NUL-separated JSON), so no port, no websocket library and no
network are involved.
"""

import base64
import fcntl
import json
import os
import subprocess
import sys
import tempfile


class Browser:
    def __init__(self, binary, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # The child needs its ends at exactly fds 3 and 4: first moved out
        # of the way (either may be 3 or 4 already), then placed; dup2 to
        # another number makes them survive the exec.
        def fds():
            r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.proc = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--window-size=1300,1500",
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            preexec_fn=fds,
            # Closing "other" descriptors would happen after preexec_fn
            # and take 3 and 4 with it.
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def wait_event(self, method):
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            e = self.read()
            if e.get("method") == method:
                return e
            self.events.append(e)

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def main():
    binary = sys.argv[1]
    job = json.load(sys.stdin)
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(binary, profile)
        try:
            target = browser.call("Target.createTarget", {"url": "about:blank"})
            session = browser.call(
                "Target.attachToTarget",
                {"targetId": target["targetId"], "flatten": True},
            )["sessionId"]
            browser.call("Page.enable", session=session)
            browser.call("Page.navigate", {"url": job["url"]}, session=session)
            browser.wait_event("Page.loadEventFired")
            results = []
            for step in job["steps"]:
                r = browser.call(
                    "Runtime.evaluate",
                    {"expression": step, "returnByValue": True, "awaitPromise": True},
                    session=session,
                )
                if "exceptionDetails" in r:
                    d = r["exceptionDetails"]
                    results.append({"error": d.get("exception", {}).get("description", d.get("text"))})
                else:
                    results.append(r["result"].get("value"))
            if job.get("screenshot"):
                shot = browser.call(
                    "Page.captureScreenshot", {"format": "png"}, session=session
                )
                with open(job["screenshot"], "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
            json.dump(results, sys.stdout)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
