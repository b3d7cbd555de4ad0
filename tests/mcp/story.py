"""An agent's session against `git beads mcp`, driven by the official MCP Python SDK.

Usage: story.py BEAD_ID AGENT OTHER_AGENT

Runs prime, ready, claim (and a claim by OTHER_AGENT on the same bead), comment,
show, close, a show of an unknown id, mail to self, inbox, read, handoff, and the
prime resource; prints what it saw as one JSON document for the Rust test to check.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def server(agent):
    env = dict(os.environ)
    env["GIT_BEADS_AGENT"] = agent
    return StdioServerParameters(command="git", args=["beads", "mcp"], env=env, cwd=os.getcwd())


def outcome(result):
    """What a tool call gave: its structured document, or its error and kind."""
    doc = result.structuredContent
    if result.isError:
        return {"error": doc["error"], "kind": doc["kind"]}
    text = json.loads(result.content[0].text)
    # The text is the document `--json` prints; a list comes structured under items.
    assert doc == (text if isinstance(text, dict) else {"items": text}), (doc, text)
    return text


async def other_claims(bead, agent):
    async with stdio_client(server(agent)) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            return outcome(await s.call_tool("claim", {"id": bead}))


async def main():
    bead, agent, other = sys.argv[1:4]
    seen = {}
    async with stdio_client(server(agent)) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            seen["server"] = init.serverInfo.name
            seen["tools"] = sorted(t.name for t in (await s.list_tools()).tools)

            async def call(name, **args):
                return outcome(await s.call_tool(name, args))

            seen["prime"] = await call("prime")
            seen["ready"] = await call("ready")
            seen["claim"] = await call("claim", id=bead)
            seen["other_claim"] = await other_claims(bead, other)
            seen["comment"] = await call("comment", id=bead, text="halfway there")
            seen["show"] = await call("show", id=bead)
            seen["close"] = await call("close", id=bead, reason="done")
            seen["unknown"] = await call("show", id="bd-nosuch")
            sent = await call("mail_send", to=[agent], subject="note to self", body="look at the logs")
            seen["sent"] = sent
            seen["inbox"] = await call("mail_inbox")
            seen["read"] = await call("mail_read", id=sent["id"])
            seen["handoff"] = await call("handoff", message="carry on from the logs")
            resources = await s.list_resources()
            seen["resources"] = [str(r.uri) for r in resources.resources]
            primed = await s.read_resource("beads://prime")
            seen["prime_text"] = primed.contents[0].text
    print(json.dumps(seen))


asyncio.run(main())
