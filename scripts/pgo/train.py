#!/usr/bin/env python3
"""Training run for a profile-guided build (scripts/pgo/build): drives an instrumented
`tarnkappe serve` with the kinds of traffic it serves, so that its profile says which code is
hot in a deployment.

    train.py PORT KEY TEXTS...

PORT is the server's listener and KEY an API key it accepts (the caller starts it with
TARNKAPPE_OPENAI_UPSTREAM, TARNKAPPE_ANTHROPIC_UPSTREAM and TARNKAPPE_API_KEYS set; this script
starts the stub upstream itself and prints its address on its first line, then waits for the
caller to press on: it reads one line on stdin). TEXTS are files: `.jsonl` (one object with a
"text" member per line) or plain text (paragraphs split at blank lines).

Every text is sent five ways: REST anonymize and deanonymize, OpenAI chat completions plain and
streaming, Anthropic messages, and as a table of its lines. The upstream echoes the prompt back,
so the restore path runs on real tokens. A 4xx answer is trained on too (the REST API refuses a
text that quotes a token form such as `[[NAME_1]]`, as some documentation paragraphs do).
"""

import http.client
import http.server
import json
import sys
import threading

class Upstream(http.server.BaseHTTPRequestHandler):
    """Answers a chat request with the last message's text, plain or as SSE."""

    protocol_version = "HTTP/1.1"
    # one write per reply (header and body), not a write each: no delayed-ACK stalls
    wbufsize = 1 << 16

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
        messages = body.get("messages") or [{}]
        text = messages[-1].get("content") or ""
        if not isinstance(text, str):
            text = json.dumps(text)
        if self.path.startswith("/v1/messages"):
            reply = {"id": "msg_1", "type": "message", "role": "assistant",
                     "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}
            self.send(json.dumps(reply).encode(), "application/json")
        elif body.get("stream"):
            events = []
            for i in range(0, len(text), 40):
                chunk = {"id": "c1", "object": "chat.completion.chunk",
                         "choices": [{"index": 0, "delta": {"content": text[i:i + 40]}}]}
                events.append(f"data: {json.dumps(chunk)}\n\n")
            events.append("data: [DONE]\n\n")
            self.send("".join(events).encode(), "text/event-stream")
        else:
            reply = {"id": "c1", "object": "chat.completion",
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                  "finish_reason": "stop"}]}
            self.send(json.dumps(reply).encode(), "application/json")

    def send(self, data, kind):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def texts(paths):
    for path in paths:
        with open(path, encoding="utf-8") as f:
            if path.endswith(".jsonl"):
                for line in f:
                    if line.strip():
                        yield json.loads(line)["text"]
            else:
                for part in f.read().split("\n\n"):
                    if part.strip():
                        yield part


def post(conn, path, body, headers=None):
    data = json.dumps(body).encode()
    conn.request("POST", path, data, {"Content-Type": "application/json", **(headers or {})})
    reply = conn.getresponse()
    out = reply.read()
    if reply.status >= 500:
        raise SystemExit(f"{path}: {reply.status}")
    return json.loads(out) if reply.getheader("Content-Type", "").startswith("application/json") else None


def main():
    port, key, paths = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    print(f"127.0.0.1:{upstream.server_address[1]}", flush=True)
    sys.stdin.readline()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    auth = {"X-API-Key": key}
    sent = 0
    for text in texts(paths):
        done = post(conn, "/api/v1/anonymize", {"text": text}, auth) or {}
        if done.get("session_id"):
            post(conn, "/api/v1/deanonymize",
                 {"session_id": done["session_id"], "text": done.get("anonymized_text", "")}, auth)
        chat = {"model": "m", "messages": [{"role": "system", "content": "Be brief."},
                                           {"role": "user", "content": text}]}
        post(conn, "/v1/chat/completions", chat)
        post(conn, "/v1/chat/completions", {**chat, "stream": True})
        post(conn, "/v1/messages", {"model": "m", "max_tokens": 64,
                                    "messages": [{"role": "user", "content": text}]})
        table = "\n".join(";".join(line.split()) for line in text.splitlines())
        post(conn, "/api/v1/anonymize", {"text": table}, auth)
        sent += 1
    print(f"trained on {sent} texts", file=sys.stderr)


if __name__ == "__main__":
    main()
