"""The official `openai` SDK pointed at Tarnkappe (driven by tests/proxy_sdk.rs).

The upstream behind the proxy echoes the tokens it received; the SDK's parsed results must
contain the original values and no token. Exits non-zero on any failure (also when the SDK is
not installed: the import fails)."""

import json
import os
import re
import sys

import openai  # noqa: F401  (fails loudly when missing)
from openai import OpenAI

PROXY = os.environ["TARNKAPPE_PROXY"]
VALUES = json.loads(os.environ["TARNKAPPE_VALUES"])
PROMPT = os.environ["TARNKAPPE_PROMPT"]
TOKEN = re.compile(r"\[\[[A-Z]+_\d+\]\]")

client = OpenAI(base_url=PROXY + "/v1", api_key="sk-test", max_retries=0)


def check(what, text):
    for v in VALUES:
        assert v in text, f"{what}: an original value is missing: {text!r}"
    assert not TOKEN.search(text), f"{what}: a token reached the client: {text!r}"


def check_args(what, args):
    parsed = json.loads(args)
    assert parsed["to"] in VALUES, f"{what}: tool argument not restored: {parsed!r}"
    check(what + " arguments", parsed["all"])
    assert parsed["quote"] == 'a "b"'


TOOLS = [{"type": "function", "function": {"name": "send", "description": "Send a message",
          "parameters": {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}}}]
MESSAGES = [{"role": "user", "content": PROMPT}]

# chat completions, plain, with a tool call
r = client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, tools=TOOLS)
check("chat plain", r.choices[0].message.content)
check_args("chat plain", r.choices[0].message.tool_calls[0].function.arguments)

# chat completions, streaming, accumulated by hand
content, args = "", ""
for chunk in client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, tools=TOOLS, stream=True):
    for c in chunk.choices:
        content += c.delta.content or ""
        for t in c.delta.tool_calls or []:
            args += t.function.arguments or ""
check("chat stream", content)
check_args("chat stream", args)

# chat completions, streaming through the SDK's own accumulator
with client.chat.completions.stream(model="gpt-4o-mini", messages=MESSAGES, tools=TOOLS) as s:
    final = s.get_final_completion()
check("chat stream helper", final.choices[0].message.content)
check_args("chat stream helper", final.choices[0].message.tool_calls[0].function.arguments)
assert final.choices[0].message.tool_calls[0].id == "call_1", final.choices[0].message.tool_calls[0].id

# multi-turn: the restored history goes back and is answered again
history = MESSAGES + [{"role": "assistant", "content": r.choices[0].message.content}]
r2 = client.chat.completions.create(model="gpt-4o-mini", messages=history + [{"role": "user", "content": "Danke"}])
check("chat second turn", r2.choices[0].message.content)

# responses API, plain and streaming
resp = client.responses.create(model="gpt-4.1", input=PROMPT, instructions="Sei kurz.")
check("responses plain", resp.output_text)
calls = [o for o in resp.output if o.type == "function_call"]
check_args("responses plain", calls[0].arguments)

deltas = ""
final = None
for ev in client.responses.create(model="gpt-4.1", input=PROMPT, stream=True):
    if ev.type == "response.output_text.delta":
        deltas += ev.delta
    elif ev.type == "response.completed":
        final = ev.response
check("responses stream deltas", deltas)
check("responses stream final", final.output_text)

with client.responses.stream(model="gpt-4.1", input=PROMPT) as s:
    final = s.get_final_response()
check("responses stream helper", final.output_text)

# legacy completions and embeddings
c = client.completions.create(model="m", prompt=PROMPT)
check("completions", c.choices[0].text)
e = client.embeddings.create(model="m", input=PROMPT, encoding_format="float")
assert e.data[0].embedding == [0.1, 0.2]

# requests the proxy cannot inspect are refused in the provider's error shape
try:
    client.embeddings.create(model="m", input=[[1, 2, 3]])
except openai.BadRequestError as err:
    assert err.status_code == 400
    assert isinstance(err.body, dict) and "message" in err.body, err.body
else:
    sys.exit("token-id input was not refused")
try:
    client.post("/batches", cast_to=object, body={"input_file_id": "file-1"})
except openai.NotFoundError as err:
    assert "message" in err.body, err.body
else:
    sys.exit("an unknown path was not refused")

print("openai sdk ok")
