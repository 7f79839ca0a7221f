"""The OpenAI Agents SDK (`openai-agents`) pointed at Tarnkappe (driven by
tests/it/proxy_conversation.rs): a three-turn agent with a tool, each turn continuing the last by
`previous_response_id` (inside the first turn too, by `auto_previous_response_id`).

The fake provider behind the proxy keeps its replies and answers from the history it holds; it
calls the tool with every token it knows, then names them all. Prints, as JSON, what the tool
was asked and each turn's final output; the Rust test judges them. Exits non-zero on any failure
(also when the SDK is not installed: the import fails)."""

import asyncio
import json
import os

from agents import Agent, OpenAIResponsesModel, Runner, function_tool, set_tracing_disabled
from openai import AsyncOpenAI

PROXY = os.environ["TARNKAPPE_PROXY"]
TURNS = json.loads(os.environ["TARNKAPPE_TURNS"])

# no traces leave for the provider's tracing endpoint
set_tracing_disabled(True)
client = AsyncOpenAI(base_url=PROXY + "/v1", api_key="sk-agent-credential", max_retries=0)
asked = []


@function_tool
def lookup_customer(query: str) -> str:
    """Looks customers up in the CRM by what is known about them."""
    asked.append(query)
    return f"Akte gefunden für {query}"


agent = Agent(
    name="Kundendienst",
    instructions="Du hilfst dem Kundendienst; schlage Kunden im CRM nach.",
    tools=[lookup_customer],
    model=OpenAIResponsesModel(model="gpt-4.1", openai_client=client),
)


async def main():
    previous = None
    outputs = []
    for text in TURNS:
        if previous is None:
            result = await Runner.run(agent, text, auto_previous_response_id=True)
        else:
            result = await Runner.run(agent, text, previous_response_id=previous)
        assert result.last_response_id, "the run has no response id"
        previous = result.last_response_id
        outputs.append(str(result.final_output))
    print(json.dumps({"asked": asked, "outputs": outputs}))


asyncio.run(main())
