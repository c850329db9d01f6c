# A stdio MCP server for tests, with the standard library only: one
# JSON-RPC message a line on stdin and stdout. Its tools: shout (upper
# case), whoami (this process's start id and environment), net (tries to
# open connections and says whether it could).
import json, os, socket, sys

BOOT = os.urandom(4).hex()
TOOLS = [
    {"name": "shout", "description": "Upper-cases text.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
    {"name": "whoami", "description": "Says which process answers and its environment.",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "net", "description": "Tries to reach the network.",
     "inputSchema": {"type": "object", "properties": {"port": {"type": "integer"}}}},
]


def probe(port):
    seen = []
    for host, p in (("127.0.0.1", port or 80), ("1.1.1.1", 80)):
        try:
            socket.create_connection((host, p), timeout=2).close()
            seen.append("%s:%d reachable" % (host, p))
        except OSError as e:
            seen.append("%s:%d blocked (%s)" % (host, p, e.strerror or e))
    return "; ".join(seen)


def call(name, args):
    if name == "shout":
        return str(args.get("text", "")).upper()
    if name == "whoami":
        env = ",".join("%s=%s" % kv for kv in sorted(os.environ.items()))
        return "boot=%s env=%s" % (BOOT, env)
    if name == "net":
        return probe(int(args.get("port") or 0))
    raise KeyError(name)


def answer(msg):
    method, params = msg.get("method"), msg.get("params") or {}
    if method == "initialize":
        return {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}}, "serverInfo": {"name": "stdio-test", "version": "1"}}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        try:
            text = call(params.get("name"), params.get("arguments") or {})
        except KeyError:
            return {"content": [{"type": "text", "text": "no such tool"}], "isError": True}
        return {"content": [{"type": "text", "text": text}]}
    if method == "ping":
        return {}
    return None


for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue  # a notification
    result = answer(msg)
    if result is None:
        out = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "method not found"}}
    else:
        out = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
