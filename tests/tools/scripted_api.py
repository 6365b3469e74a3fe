#!/usr/bin/env python3
"""A loopback LLM stand-in that makes real agent CLIs run tools, so they write real sessions.

    python scripted_api.py PORT LOGDIR [LIFETIME_S]

Copied from ../shared/tools/scripted_api.py and extended with Qwen Code's shell tool
(`run_shell_command`). Anthropic /v1/messages, OpenAI /v1/responses and /chat/completions, all
streamed; the reply depends on the conversation: the latest user prompt carries a directive
`[tools:K]` (K sequential tool calls, one per reply), `[par]` (two calls in one reply), `[big]`
(one call printing ~3,000 lines), `[fail]` (a failing command); after the last call's result it
answers with text. The tool is picked from the request's own tool list. Standard library only.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PORT, LOG = int(sys.argv[1]), Path(sys.argv[2])
LIFETIME = float(sys.argv[3]) if len(sys.argv) > 3 else 1800.0
LOG.mkdir(parents=True, exist_ok=True)
COUNT = [0]
LOCK = threading.Lock()
DIRECTIVE = re.compile(r"\[(tools:\d+|par|big|fail|none)\]")


def texts(content) -> list[str]:
    if isinstance(content, str):
        return [content]
    out = []
    for b in content or []:
        if isinstance(b, dict) and isinstance(b.get("text"), str):
            out.append(b["text"])
    return out


def plan(items: list[tuple[str, list[str], bool]]) -> tuple[str, int]:
    """items: (role, texts, is_tool_output) in order; (directive, tool rounds done since it)."""
    idx = None
    for i, (role, tx, _) in enumerate(items):
        if role == "user" and any(DIRECTIVE.search(t) for t in tx):
            idx = i
    if idx is None:
        return "none", 0
    d = next(DIRECTIVE.search(t).group(1) for t in items[idx][1] if DIRECTIVE.search(t))
    rounds = sum(1 for role, _, out in items[idx + 1 :] if out)
    return d, rounds


def want_calls(d: str, rounds: int) -> int:
    """How many tool calls the next reply makes (0 = final text)."""
    if d.startswith("tools:"):
        return 1 if rounds < int(d.split(":")[1]) else 0
    if d == "par":
        return 2 if rounds == 0 else 0
    if d in ("big", "fail"):
        return 1 if rounds == 0 else 0
    return 0


def command_for(d: str, rounds: int, k: int) -> str:
    if d == "big":
        return "seq 1 3000 | sed 's/^/line number /'"
    if d == "fail":
        return "ls /definitely/not/here"
    return f"echo step-{rounds + 1}-{k} && date +%s && ls /tmp | head -3"


def pick_tool(tools: list) -> tuple[str, callable] | None:
    """(name, args(cmd)->dict) for a shell-like tool in the request's tool list."""
    for t in tools or []:
        fn = t.get("function") if isinstance(t.get("function"), dict) else t
        name = fn.get("name")
        schema = fn.get("input_schema") or fn.get("parameters") or {}
        props = schema.get("properties") or {}
        if name in (
            "Bash",
            "bash",
            "shell",
            "shell_command",
            "exec_command",
            "local_shell",
            "run_shell_command",
        ) or ("command" in props and name and "bash" in name.lower()):
            if "cmd" in props:
                return name, lambda c: {"cmd": c}
            cp = props.get("command") or {}
            if cp.get("type") == "array":
                return name, lambda c: {"command": ["bash", "-lc", c]}
            if name == "Bash":
                return name, lambda c: {"command": c, "description": "run a step"}
            return name, lambda c: {"command": c}
    return None


def sse(events):
    return "".join(f"event: {n}\ndata: {json.dumps(d)}\n\n" for n, d in events).encode()


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        if self.path.split("?")[0].rstrip("/").endswith("/models"):
            return self._json({"object": "list", "data": []})
        self._json({})

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        with LOCK:
            COUNT[0] += 1
            n = COUNT[0]
        (LOG / f"{n:03d}{self.path.replace('/', '_').split('?')[0]}.json").write_bytes(body)
        try:
            req = json.loads(body or b"{}")
        except ValueError:
            req = {}
        if "count_tokens" in self.path:
            return self._json({"input_tokens": 42})
        if "/messages" in self.path:
            return self.anthropic(req)
        if "/responses" in self.path:
            return self.openai_responses(req)
        if "chat/completions" in self.path:
            return self.chat(req)
        self._json({})

    # ---------------------------------------------------------------- Anthropic
    def anthropic(self, req):
        items = []
        for m in req.get("messages") or []:
            c = m.get("content")
            out = isinstance(c, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in c
            )
            items.append((m.get("role"), texts(c), out))
        d, rounds = plan(items)
        tool = pick_tool(req.get("tools"))
        k = want_calls(d, rounds) if tool else 0
        blocks = []
        if k:
            blocks.append({"type": "text", "text": f"Running step {rounds + 1}."})
            for j in range(k):
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": f"toolu_{uuid.uuid4().hex[:24]}",
                        "name": tool[0],
                        "input": tool[1](command_for(d, rounds, j)),
                    }
                )
        else:
            blocks.append({"type": "text", "text": f"Done ({d}, {rounds} tool rounds)."})
        stop = "tool_use" if k else "end_turn"
        msg = {
            "id": f"msg_{uuid.uuid4().hex[:20]}",
            "type": "message",
            "role": "assistant",
            "model": req.get("model", "x"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        if not req.get("stream"):
            return self._json({**msg, "content": blocks, "stop_reason": stop})
        ev = [("message_start", {"type": "message_start", "message": msg})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                ev += [
                    (
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": i,
                            "content_block": {"type": "text", "text": ""},
                        },
                    ),
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "text_delta", "text": b["text"]},
                        },
                    ),
                ]
            else:
                ev += [
                    (
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": i,
                            "content_block": {**b, "input": {}},
                        },
                    ),
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {
                                "type": "input_json_delta",
                                "partial_json": json.dumps(b["input"]),
                            },
                        },
                    ),
                ]
            ev.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        ev += [
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        self._stream(sse(ev))

    # ---------------------------------------------------------------- OpenAI Responses
    def openai_responses(self, req):
        items = []
        inp = req.get("input") or []
        if isinstance(inp, str):
            inp = [{"type": "message", "role": "user", "content": inp}]
        for it in inp:
            t = it.get("type", "message")
            if t == "message":
                items.append((it.get("role"), texts(it.get("content")), False))
            elif t.endswith("_output"):
                items.append(("tool", [], True))
            else:
                items.append((t, [], False))
        d, rounds = plan(items)
        tool = pick_tool(req.get("tools"))
        k = want_calls(d, rounds) if tool else 0
        out = []
        if k:
            for j in range(k):
                out.append(
                    {
                        "type": "function_call",
                        "id": f"fc_{uuid.uuid4().hex[:16]}",
                        "status": "completed",
                        "call_id": f"call_{uuid.uuid4().hex[:16]}",
                        "name": tool[0],
                        "arguments": json.dumps(tool[1](command_for(d, rounds, j))),
                    }
                )
        else:
            out.append(
                {
                    "type": "message",
                    "id": f"m_{uuid.uuid4().hex[:8]}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [
                        {
                            "type": "output_text",
                            "text": f"Done ({d}, {rounds} tool rounds).",
                            "annotations": [],
                        }
                    ],
                }
            )
        resp = {
            "id": f"resp_{uuid.uuid4().hex[:12]}",
            "object": "response",
            "status": "completed",
            "output": out,
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
        }
        ev = [
            (
                "response.created",
                {
                    "type": "response.created",
                    "response": {**resp, "status": "in_progress", "output": []},
                },
            )
        ]
        for i, it in enumerate(out):
            ev.append(
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": i, "item": it},
                )
            )
            ev.append(
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": i, "item": it},
                )
            )
        ev.append(("response.completed", {"type": "response.completed", "response": resp}))
        self._stream(sse(ev))

    # ---------------------------------------------------------------- chat completions
    def chat(self, req):
        items = []
        for m in req.get("messages") or []:
            items.append((m.get("role"), texts(m.get("content")), m.get("role") == "tool"))
        d, rounds = plan(items)
        tool = pick_tool(req.get("tools"))
        k = want_calls(d, rounds) if tool else 0
        base = {
            "id": "chatcmpl-x",
            "created": int(time.time()),
            "model": req.get("model", "x"),
            "object": "chat.completion.chunk",
        }
        frames = [
            {
                **base,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"role": "assistant", "content": ""},
                        "finish_reason": None,
                    }
                ],
            }
        ]
        if k:
            for j in range(k):
                frames.append(
                    {
                        **base,
                        "choices": [
                            {
                                "index": 0,
                                "delta": {
                                    "tool_calls": [
                                        {
                                            "index": j,
                                            "id": f"call_{uuid.uuid4().hex[:16]}",
                                            "type": "function",
                                            "function": {
                                                "name": tool[0],
                                                "arguments": json.dumps(
                                                    tool[1](command_for(d, rounds, j))
                                                ),
                                            },
                                        }
                                    ]
                                },
                                "finish_reason": None,
                            }
                        ],
                    }
                )
            frames.append(
                {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
            )
        else:
            frames.append(
                {
                    **base,
                    "choices": [
                        {
                            "index": 0,
                            "delta": {"content": f"Done ({d}, {rounds} tool rounds)."},
                            "finish_reason": None,
                        }
                    ],
                }
            )
            frames.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        frames.append(
            {
                **base,
                "choices": [],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        )
        self._stream(
            "".join(f"data: {json.dumps(f)}\n\n" for f in frames).encode() + b"data: [DONE]\n\n"
        )

    def _stream(self, data: bytes):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        self.wfile.write(data)

    def _json(self, obj):
        data = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


server = ThreadingHTTPServer(("127.0.0.1", PORT), H)
threading.Thread(target=lambda: (time.sleep(LIFETIME), server.shutdown()), daemon=True).start()
server.serve_forever()
