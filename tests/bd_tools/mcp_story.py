"""A whole story through beads-mcp (the MCP server for bd), driven by the official
MCP Python client, against git-beads in place of bd. Run by tests/bd_tools.rs:

    python mcp_story.py BEADS_MCP_COMMAND

with BEADS_PATH (the bd executable beads-mcp runs) and BEADS_WORKING_DIR set. Every
check that fails raises; the last line printed is "story ok".
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def check(cond, what, got):
    if not cond:
        raise SystemExit(f"FAILED: {what}: {json.dumps(got, default=str)[:2000]}")


async def story(server):
    params = StdioServerParameters(command=server, args=[], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(tool, **args):
                res = await session.call_tool(tool, args)
                text = "".join(getattr(c, "text", "") for c in res.content)
                if res.isError:
                    raise SystemExit(f"FAILED: {tool} {args}: {text}")
                data = res.structuredContent
                if isinstance(data, dict) and set(data) == {"result"}:
                    data = data["result"]
                if data is None:
                    try:
                        data = json.loads(text)
                    except ValueError:
                        data = text
                print(f"{tool} {json.dumps(args)} -> {json.dumps(data, default=str)[:300]}")
                return data

            design = await call(
                "create",
                title="Design the API",
                description="Routes and payloads.",
                design="REST, JSON",
                acceptance="Reviewed by two",
                issue_type="feature",
                priority=1,
                labels=["api"],
                brief=False,
            )
            check(design["issue_type"] == "feature", "create keeps the type", design)
            check(design["priority"] == 1, "create keeps the priority", design)
            check(design.get("design") == "REST, JSON", "create keeps the design", design)
            build = await call("create", title="Build the API", brief=False)
            a, b = design["id"], build["id"]

            await call("dep", issue_id=b, depends_on_id=a, dep_type="blocks")
            shown = await call("show", issue_id=b)
            deps = [d["id"] for d in shown.get("dependencies", [])]
            check(deps == [a], "show lists what it depends on", shown)
            check(shown["title"] == "Build the API", "show has the title", shown)

            ready = await call("ready")
            ids = [i["id"] for i in ready]
            check(a in ids and b not in ids, "ready offers the blocker only", ready)
            blocked = await call("blocked")
            check(
                [(i["id"], i["blocked_by"]) for i in blocked] == [(b, [a])],
                "blocked names the blocker",
                blocked,
            )

            claimed = await call("claim", issue_id=a, brief=False)
            check(claimed["status"] == "in_progress", "claim starts it", claimed)
            check(claimed.get("assignee"), "claim assigns it", claimed)

            await call("comment", issue_id=a, text="Started on the routes")
            said = await call("comments", issue_id=a)
            check(
                [c["text"] for c in said] == ["Started on the routes"],
                "comments lists the comment",
                said,
            )
            check(said[0]["issue_id"] == a, "a comment names its bead", said)
            await call("note", issue_id=a, text="Payloads first")

            updated = await call(
                "update", issue_id=a, priority=0, notes="Payloads first, then routes", brief=False
            )
            check(updated["priority"] == 0, "update changes the priority", updated)
            check(updated.get("notes") == "Payloads first, then routes", "update sets notes", updated)

            closed = await call("close", issue_id=a, reason="Designed", brief=False)
            check(closed[0]["status"] == "closed", "close closes", closed)
            ready = await call("ready")
            check([i["id"] for i in ready] == [b], "closing the blocker frees the next", ready)

            reopened = await call("reopen", issue_ids=[a], reason="One more route", brief=False)
            check(reopened[0]["status"] == "open", "reopen opens", reopened)

            listed = await call("list", status="open")
            check(sorted(i["id"] for i in listed) == sorted([a, b]), "list shows both", listed)
            found = await call("list", query="design")
            check([i["id"] for i in found] == [a], "list finds by title", found)

            stats = await call("stats")
            summary = stats["summary"]
            check(summary["total_issues"] == 2, "stats counts both", stats)
            check(summary["open_issues"] == 2, "stats counts the open", stats)
            check(summary["blocked_issues"] == 1, "stats counts the blocked", stats)
            print("story ok")


asyncio.run(story(sys.argv[1]))
