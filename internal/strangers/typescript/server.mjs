// A stranger's server for boundlab's auditor: the official TypeScript MCP SDK
// (@modelcontextprotocol/sdk, the version internal/strangers pins and
// installs beside this file) as its README wires a stateful streamable HTTP
// server: createMcpExpressApp (express with its JSON body parser and DNS
// rebinding protection on 127.0.0.1), one StreamableHTTPServerTransport and
// McpServer per session, keyed by the Mcp-Session-Id. Two read-only tools
// with zod input schemas. Listens on 127.0.0.1 only, on the port given as
// the first argument (0: an ephemeral one), and prints its URL as the first
// line on stdout ("stranger: MCP streamable HTTP at URL").
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

function newServer() {
  const server = new McpServer({ name: "stranger-typescript", version: "0.0.0" });
  server.registerTool("lookup", {
    description: "look a key up",
    inputSchema: { key: z.string().describe("the key to look up") },
    annotations: { readOnlyHint: true },
  }, async () => ({ content: [{ type: "text", text: "found nothing" }] }));
  server.registerTool("count", {
    description: "count to n",
    inputSchema: { n: z.number().int().describe("how many to count"), label: z.string().optional() },
    annotations: { readOnlyHint: true },
  }, async () => ({ content: [{ type: "text", text: "counted" }] }));
  return server;
}

const transports = {};
const app = createMcpExpressApp();

app.post("/mcp", async (req, res) => {
  const id = req.headers["mcp-session-id"];
  let transport = id ? transports[id] : undefined;
  if (!transport) {
    if (id || !isInitializeRequest(req.body)) {
      res.status(400).json({ jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: No valid session ID provided" }, id: null });
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => { transports[sid] = transport; },
    });
    transport.onclose = () => { if (transport.sessionId) delete transports[transport.sessionId]; };
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res, req.body);
});

const session = async (req, res) => {
  const id = req.headers["mcp-session-id"];
  if (!id || !transports[id]) {
    res.status(400).send("Invalid or missing session ID");
    return;
  }
  await transports[id].handleRequest(req, res);
};
app.get("/mcp", session);
app.delete("/mcp", session);

const port = Number(process.argv[2] ?? 0);
const listener = app.listen(port, "127.0.0.1", () => {
  console.log(`stranger: MCP streamable HTTP at http://127.0.0.1:${listener.address().port}/mcp`);
});
