// The official MCP TypeScript SDK's streamable HTTP server with the load benchmark's `echo` tool,
// the peer of `pi-tool serve --http` in scripts/mcp-load.sh. One transport per session, as the
// SDK's own example does.
//
// usage: node mcp_ts_server.mjs --http PORT
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const port = Number(process.argv[process.argv.indexOf("--http") + 1]);
const transports = new Map();

function newServer() {
  const server = new McpServer({ name: "ts-peer", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echo one value (the load benchmark's tool)", inputSchema: { value: z.string() } },
    async ({ value }) => ({ content: [{ type: "text", text: value }] }),
  );
  return server;
}

async function body(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

createServer(async (request, response) => {
  if (!request.url?.startsWith("/mcp")) {
    response.writeHead(404).end();
    return;
  }
  const sessionId = request.headers["mcp-session-id"];
  const parsed = request.method === "POST" ? await body(request) : undefined;
  let transport = sessionId ? transports.get(sessionId) : undefined;
  if (!transport && request.method === "POST" && isInitializeRequest(parsed)) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => transports.set(id, transport),
    });
    transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
    await newServer().connect(transport);
  }
  if (!transport) {
    response.writeHead(400, { "content-type": "application/json" }).end(
      JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "no valid session" }, id: null }),
    );
    return;
  }
  await transport.handleRequest(request, response, parsed);
}).listen(port, "127.0.0.1");
