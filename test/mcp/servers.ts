// Test fixture: MCP servers for gg to call, as configuration entries: real ones from npm (run with node on their
// installed entry files, never npx) and gg's own fixture (fixture_server.ts).
import { join } from "node:path";
import type { McpServerEntry } from "../../host/mcp_client.ts";

const modules = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol");

/** @modelcontextprotocol/server-everything: hyphenated names, an outputSchema, a tiny image, get-env. */
export const everything = (): McpServerEntry => ({ command: process.execPath, args: [join(modules, "server-everything/dist/index.js")] });
/** @modelcontextprotocol/server-memory: 9 tools with outputSchemas, its graph in `file`. */
export const memory = (file: string): McpServerEntry => ({ command: process.execPath, args: [join(modules, "server-memory/dist/index.js")], env: { MEMORY_FILE_PATH: file } });
/** @modelcontextprotocol/server-filesystem: 14 tools over the folders given. */
export const filesystem = (...folders: string[]): McpServerEntry => ({ command: process.execPath, args: [join(modules, "server-filesystem/dist/index.js"), ...folders] });
/** gg's fixture server; `log` is the file it notes cancellations in. */
export const fixture = (log?: string, extra: Partial<McpServerEntry> = {}): McpServerEntry => ({ command: process.execPath, args: [join(import.meta.dirname, "fixture_server.ts")], ...(log ? { env: { FIXTURE_LOG: log } } : {}), ...extra });
