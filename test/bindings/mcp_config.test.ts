// The "mcpServers" of a configuration and of an --mcp-config file: the shape .mcp.json uses, every bad entry named
// with every other problem in one refusal.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ConfigError, defaultConfiguration, parseConfiguration, withMcpConfig } from "../../bindings/config.ts";
import { tempWorkspace } from "../workspace.ts";

const problems = (input: unknown): readonly string[] => {
  try {
    parseConfiguration(input);
    return [];
  } catch (error) {
    return (error as ConfigError).problems;
  }
};

describe("mcpServers", () => {
  test("takes stdio and Streamable HTTP entries as .mcp.json writes them", () => {
    const servers = {
      memory: { command: "node", args: ["/abs/server.js"], env: { MEMORY_FILE_PATH: "/data/memory.json" }, cwd: "/abs" },
      remote: { url: "http://127.0.0.1:3000/mcp", headers: { authorization: "Bearer X" } },
      off: { command: "x", enabled: false },
      slow: { command: "node", args: ["s.js"], timeoutSecs: 5, type: "stdio" },
    };
    // "type", as other clients write it, says what command or url already does.
    expect(parseConfiguration({ mcpServers: servers }).mcpServers).toEqual({ ...servers, slow: { command: "node", args: ["s.js"], timeoutSecs: 5 } });
  });

  test("${VAR} and ${VAR:-default} are checked against gg's environment and kept as written: their values are read at the start", () => {
    process.env.GG_TEST_MCP_HOST = "127.0.0.1:8080";
    try {
      const servers = {
        set: { url: "http://${GG_TEST_MCP_HOST}/mcp", headers: { authorization: "Bearer ${GG_TEST_MCP_UNSET:-none}" } },
        defaulted: { command: "${GG_TEST_MCP_UNSET:-node}", args: ["${GG_TEST_MCP_UNSET:-}"], env: { K: "${GG_TEST_MCP_HOST}" } },
      };
      expect(parseConfiguration({ mcpServers: servers }).mcpServers).toEqual(servers);
      expect(problems({ mcpServers: { a: { command: "node", args: ["--token", "${GG_TEST_MCP_UNSET}"] }, b: { url: "${GG_TEST_MCP_UNSET:-not a url}" } } })).toEqual([
        'MCP server "a" refers to ${GG_TEST_MCP_UNSET}, which is not set in gg\'s environment; set it, or give a default as ${GG_TEST_MCP_UNSET:-value}',
        'MCP server "b" has url "${GG_TEST_MCP_UNSET:-not a url}"; it must be an http:// or https:// address',
      ]);
      // A command that comes out empty, and a default holding a reference (not expanded: ${A:-${B}} would give "${B}"),
      // are refused here rather than at the start; a server left out (enabled: false) needs none of its variables.
      expect(problems({ mcpServers: { e: { command: "${GG_TEST_MCP_UNSET:-}" }, n: { command: "node", args: ["${GG_TEST_MCP_UNSET:-${GG_TEST_MCP_HOST}}"] }, off: { command: "${GG_TEST_MCP_UNSET}", enabled: false } } })).toEqual([
        'MCP server "e" has command "${GG_TEST_MCP_UNSET:-}", which comes out empty; it must name the program to start',
        'MCP server "n" has "${GG_TEST_MCP_UNSET:-${GG_TEST_MCP_HOST}}", a reference in a default, which is not expanded; give the default as plain text',
      ]);
    } finally {
      delete process.env.GG_TEST_MCP_HOST;
    }
  });

  test("names every bad entry at once: neither or both of command and url, wrong types, unknown fields, bad and reserved names", () => {
    expect(
      problems({
        mcpServers: {
          none: {},
          both: { command: "x", url: "http://127.0.0.1/mcp" },
          typed: { command: 3, args: "a", env: { A: 1 }, timeoutSecs: 0 },
          extra: { command: "x", colour: "red" },
          "9bad": { command: "x" },
          search: { command: "x" },
          ftp: { url: "ftp://host/x" },
          [`a${"n".repeat(48)}`]: { command: "x" },
        },
      }),
    ).toEqual([
      'MCP server "none" has neither "command" and "url"; give "command" (and "args") for a server gg starts, or "url" for one it reaches over HTTP',
      'MCP server "both" has both "command" and "url"; give "command" (and "args") for a server gg starts, or "url" for one it reaches over HTTP',
      'MCP server "typed" has command 3; it must be a non-empty string, the program to start',
      'MCP server "typed" has args "a"; it must be an array of strings',
      'MCP server "typed" has env {"A":1}; it must be an object of strings, e.g. {"API_KEY": "..."}',
      'MCP server "typed" has timeoutSecs 0; it must be a number of seconds above 0, at most 86400',
      'MCP server "extra" has an unknown field "colour"; its fields are "command", "args", "env", "cwd", "url", "headers", "enabled", "timeoutSecs", "type"',
      'MCP server "9bad" has a name gg cannot use; a name starts with a letter and holds letters, digits, "_" and "-", and no "__" (it separates server and tool in mcp__<server>__<tool>)',
      'MCP server "search" takes a name gg.mcp uses itself (call, search, describe, list); rename it',
      'MCP server "ftp" has url "ftp://host/x"; it must be an http:// or https:// address',
      `MCP server "a${"n".repeat(48)}" has a name of 49 characters; a name has at most 48, so that every tool's name (cut to 64 characters) starts with mcp__<server>__ and a rule mcp__<server>__* covers it`,
    ]);
  });

  test("an --mcp-config file adds its servers; a server named in both is refused", () => {
    const config = withMcpConfig(parseConfiguration({ mcpServers: { a: { command: "x" } } }), { mcpServers: { b: { command: "y" } }, globalShortcut: "ignored" }, "claude.json");
    expect(Object.keys(config.mcpServers ?? {})).toEqual(["a", "b"]);
    expect(() => withMcpConfig(config, { mcpServers: { a: { command: "z" } } }, "again.json")).toThrow(/MCP server "a" is configured in both --config and again.json/);
    expect(() => withMcpConfig(defaultConfiguration(), { servers: {} }, "wrong.json")).toThrow(/wrong.json has no "mcpServers"/);
  });

  test("gg refuses a bad --mcp-config with exit 2, naming every problem", () => {
    using ws = tempWorkspace();
    ws.put({ "mcp.json": JSON.stringify({ mcpServers: { a: {}, b: { url: 1 } } }) });
    const run = spawnSync(process.execPath, [join(import.meta.dirname, "../../bin/gg.js"), "tools", "--mcp-config", join(ws.root, "mcp.json")], { encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('MCP server "a" has neither "command" and "url"');
    expect(run.stderr).toContain('MCP server "b" has url 1');
  });

  test("rules and allowlists name external tools, or a prefix of them ending in *", () => {
    const config = parseConfiguration({ agents: [{ id: "r", allow: ["read_file", "mcp__memory__*"] }], approvals: [{ call: "mcp__memory__delete_entities", when: { anything: "*" }, verdict: "deny" }] });
    expect(config.agents.r).toEqual(["read_file", "mcp__memory__*"]);
    expect(problems({ approvals: [{ call: "mcp__*__x*", verdict: "deny" }] })).toHaveLength(1);
    // mcp__a__b__c could be server a's tool b__c or server a__b's tool c: "__" has no place in a server's name.
    expect(problems({ mcpServers: { a__b: { command: "x" } } })).toEqual([expect.stringContaining('MCP server "a__b" has a name gg cannot use')]);
  });
});
