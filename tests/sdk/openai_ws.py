"""The `openai` SDK's Responses WebSocket (`client.responses.connect()`) pointed at Tarnkappe
(driven by tests/it/proxy_websocket.rs).

The WebSocket provider behind the proxy echoes the tokens it received. One socket: a
`response.create` naming TARNKAPPE_NAME, then a `response.steer` of that response naming
TARNKAPPE_OTHER; the SDK's parsed events must carry the original values and no token. Exits
non-zero on any failure (also when the SDK is not installed: the import fails)."""

import json
import os
import re

from openai import OpenAI

PROXY = os.environ["TARNKAPPE_PROXY"]
NAME = os.environ["TARNKAPPE_NAME"]
OTHER = os.environ["TARNKAPPE_OTHER"]
TOKEN = re.compile(r"\[\[[A-Z]+_\d+\]\]")

client = OpenAI(base_url=PROXY + "/v1", api_key="sk-test", max_retries=0)


def check(what, text, values):
    for v in values:
        assert v in text, f"{what}: an original value is missing: {text!r}"
    assert not TOKEN.search(text), f"{what}: a token reached the client: {text!r}"


def until_completed(conn):
    events = []
    for event in conn:
        events.append(event)
        if event.type == "response.completed":
            return events
        assert event.type != "error", f"error event: {event!r}"
    raise AssertionError("the socket closed before response.completed")


def user(text):
    return [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]


with client.responses.connect() as conn:
    conn.response.create(model="gpt-5", input=user(f"Ich bin {NAME}."))
    events = until_completed(conn)
    done = events[-1].response
    text = done.output[0].content[0].text
    check("create", text, [NAME])
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert deltas == text, f"the deltas differ from the text: {deltas!r} / {text!r}"

    conn.response.steer(previous_response_id=done.id, input=user(f"Schreib auch an {OTHER}."))
    events = until_completed(conn)
    assert events[0].type == "response.steer.accepted", f"{events[0]!r}"
    check("steer accepted", json.dumps(events[0].to_dict(), ensure_ascii=False), [OTHER])
    check("successor", events[-1].response.output[0].content[0].text, [NAME, OTHER])

print("ok")
