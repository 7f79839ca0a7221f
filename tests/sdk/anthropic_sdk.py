"""The official `anthropic` SDK pointed at Tarnkappe (driven by tests/proxy_sdk.rs).

The upstream behind the proxy echoes the tokens it received; the SDK's parsed results must
contain the original values and no token. Exits non-zero on any failure (also when the SDK is
not installed: the import fails)."""

import json
import os
import re

import anthropic
from anthropic import Anthropic

PROXY = os.environ["TARNKAPPE_PROXY"]
VALUES = json.loads(os.environ["TARNKAPPE_VALUES"])
PROMPT = os.environ["TARNKAPPE_PROMPT"]
TOKEN = re.compile(r"\[\[[A-Z]+_\d+\]\]")

client = Anthropic(base_url=PROXY, api_key="sk-ant-test", max_retries=0)


def check(what, text):
    for v in VALUES:
        assert v in text, f"{what}: an original value is missing: {text!r}"
    assert not TOKEN.search(text), f"{what}: a token reached the client: {text!r}"


def check_input(what, inp):
    assert inp["to"] in VALUES, f"{what}: tool input not restored: {inp!r}"
    check(what + " input", inp["all"])
    assert inp["quote"] == 'a "b"'


TOOLS = [{"name": "send", "description": "Send a message",
          "input_schema": {"type": "object", "properties": {"to": {"type": "string"}}}}]
MESSAGES = [{"role": "user", "content": PROMPT}]

m = client.messages.create(model="claude-test", max_tokens=100, messages=MESSAGES, tools=TOOLS,
                           system=[{"type": "text", "text": "Support"}])
texts = [b.text for b in m.content if b.type == "text"]
uses = [b for b in m.content if b.type == "tool_use"]
check("messages plain", texts[0])
check_input("messages plain", uses[0].input)

streamed = ""
with client.messages.stream(model="claude-test", max_tokens=100, messages=MESSAGES, tools=TOOLS) as s:
    for t in s.text_stream:
        streamed += t
    final = s.get_final_message()
check("messages stream text", streamed)
texts = [b.text for b in final.content if b.type == "text"]
uses = [b for b in final.content if b.type == "tool_use"]
check("messages stream final", texts[0])
check_input("messages stream final", uses[0].input)

raw_text = ""
for ev in client.messages.create(model="claude-test", max_tokens=100, messages=MESSAGES, stream=True):
    if ev.type == "content_block_delta" and ev.delta.type == "text_delta":
        raw_text += ev.delta.text
check("messages raw stream", raw_text)

# multi-turn with the restored history, including the tool use and its result
history = MESSAGES + [{"role": "assistant", "content": [{"type": "text", "text": texts[0]},
                       {"type": "tool_use", "id": uses[0].id, "name": "send", "input": uses[0].input}]},
                      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uses[0].id, "content": "gesendet"}]}]
m2 = client.messages.create(model="claude-test", max_tokens=100, messages=history, tools=TOOLS)
check("messages second turn", [b.text for b in m2.content if b.type == "text"][0])

try:
    client.post("/v1/messages/batches", cast_to=object, body={"requests": []})
except anthropic.NotFoundError as err:
    assert err.body["type"] == "error", err.body
    assert err.body["error"]["type"] == "invalid_request_error", err.body
else:
    raise SystemExit("an unknown path was not refused")

print("anthropic sdk ok")
