import { describe, expect, test } from "vitest";
import { ruleVerdict } from "../../bindings/approval_match.ts";
import { ConfigError, forAgent, parseConfiguration } from "../../bindings/config.ts";

const place = { workspace: "/ws", cwd: "/ws" };
const shell = { name: "shell", effects: true, paths: false };
const writeFile = { name: "write_file", effects: true, paths: true };
const readFile = { name: "read_file", effects: false, paths: true };
const read = { name: "read", effects: false, paths: true };

/** The verdict `rules` (top level) give a call, and who gave it. */
const verdict = (rules: unknown[], call: { name: string; effects: boolean; paths: boolean }, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
  const { verdict, by } = ruleVerdict(parseConfiguration({ approvals: rules, ...extra }), call, args, place);
  return `${verdict} by ${by}`;
};

const refusal = (input: unknown): string[] => {
  try {
    parseConfiguration(input);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
};

describe("approval rules", () => {
  test("with no rule, every call is allowed by default", () => {
    expect(verdict([], shell, { command: "rm -rf /" })).toBe("allow by default");
    expect(verdict([], readFile, { path: "a" })).toBe("allow by default");
  });

  test("approvalDefault ask asks for calls with effects only", () => {
    expect(verdict([], shell, { command: "ls" }, { approvalDefault: "ask" })).toBe("ask by default");
    expect(verdict([], readFile, { path: "a" }, { approvalDefault: "ask" })).toBe("allow by default");
    expect(verdict([{ call: "write_file", when: { path: "src/**" }, verdict: "allow" }], writeFile, { path: "src/a.ts" }, { approvalDefault: "ask" })).toBe("allow by rule 1");
  });

  test("a command glob is matched against the whole line and its * crosses /", () => {
    const rules = [{ call: "shell", when: { command: "git push*" }, verdict: "deny" }];
    expect(verdict(rules, shell, { command: "git push origin feat/x" })).toBe("deny by rule 1");
    expect(verdict(rules, shell, { command: "git  push  --force" })).toBe("deny by rule 1");
    expect(verdict(rules, shell, { command: "echo git push" })).toBe("allow by default");
    expect(verdict([{ call: "shell", when: { command: "rm ?rf*" }, verdict: "deny" }], shell, { command: "rm -rf /tmp/x" })).toBe("deny by rule 1");
  });

  test("a path glob is matched against the workspace-relative path after resolving it", () => {
    const rules = [{ call: "write_file", when: { path: "src/**" }, verdict: "deny" }];
    for (const path of ["src/a.ts", "./src/a.ts", "/ws/src/a.ts", "lib/../src/deep/b.ts", "src/.env"]) expect(verdict(rules, writeFile, { path, content: "" }), path).toBe("deny by rule 1");
    for (const path of ["srcx/a.ts", "/elsewhere/src/a.ts", "a.ts"]) expect(verdict(rules, writeFile, { path, content: "" }), path).toBe("allow by default");
  });

  test("a path glob's * stays within a segment and ** crosses them", () => {
    expect(verdict([{ call: "read_file", when: { path: "src/*" }, verdict: "deny" }], readFile, { path: "src/a/b.ts" })).toBe("allow by default");
    expect(verdict([{ call: "read_file", when: { path: "src/*" }, verdict: "deny" }], readFile, { path: "src/b.ts" })).toBe("deny by rule 1");
    expect(verdict([{ call: "read_file", when: { path: "**/*.pem" }, verdict: "deny" }], readFile, { path: "a/b/key.pem" })).toBe("deny by rule 1");
  });

  test("a path outside the workspace is matched as an absolute path", () => {
    const rules = [{ call: "*", when: { path: "/etc/**" }, verdict: "ask" }];
    expect(verdict(rules, readFile, { path: "/etc/passwd" })).toBe("ask by rule 1");
    expect(verdict(rules, readFile, { path: "../../../etc/passwd" })).toBe("ask by rule 1");
  });

  test("a batch call is judged by each of its paths, the strictest winning", () => {
    const rules = [{ call: "read", when: { path: "secret/**" }, verdict: "deny" }];
    expect(verdict(rules, read, { files: [{ path: "a.ts" }, { path: "secret/k" }] })).toBe("deny by rule 1");
    expect(verdict(rules, read, { files: [{ path: "a.ts" }, { path: "b.ts" }] })).toBe("allow by default");
    // An allow for some paths does not allow the others.
    const allowSrc = [{ call: "*", when: { path: "src/**" }, verdict: "allow" }];
    expect(verdict(allowSrc, { name: "edit", effects: true, paths: true }, { path: "lib/a.ts" }, { approvalDefault: "ask" })).toBe("ask by default");
  });

  test('"*" with a when applies to every call with that argument, and to no call without it', () => {
    const rules = [{ call: "*", when: { path: "secret/**" }, verdict: "deny" }];
    expect(verdict(rules, readFile, { path: "secret/a" })).toBe("deny by rule 1");
    expect(verdict(rules, writeFile, { path: "secret/a", content: "" })).toBe("deny by rule 1");
    expect(verdict([{ call: "*", when: { path: "**" }, verdict: "deny" }], shell, { command: "ls" })).toBe("allow by default");
  });

  test("the strictest verdict wins, whatever the order", () => {
    const rules = [
      { call: "shell", when: { command: "git *" }, verdict: "allow" },
      { call: "shell", when: { command: "git push*" }, verdict: "deny" },
      { call: "shell", verdict: "ask" },
    ];
    expect(verdict(rules, shell, { command: "git push" })).toBe("deny by rule 2");
    expect(verdict(rules, shell, { command: "git status" })).toBe("ask by rule 3");
  });

  test("an agent's entry can only add restrictions: its allow does not lift the top level's ask or deny", () => {
    const config = parseConfiguration({
      approvals: [{ call: "shell", when: { command: "git push*" }, verdict: "deny" }],
      approvalDefault: "ask",
      agents: [{ id: "dev", approvals: [{ call: "*", verdict: "allow" }, { call: "write_file", when: { path: "docs/**" }, verdict: "deny", reason: "docs are frozen" }] }],
    });
    const dev = forAgent(config, "dev");
    expect(ruleVerdict(dev, shell, { command: "git push" }, place).by).toBe("rule 1");
    expect(ruleVerdict(dev, shell, { command: "ls" }, place).verdict).toBe("ask");
    expect(ruleVerdict(dev, writeFile, { path: "docs/a.md" }, place)).toEqual({ verdict: "deny", by: "rule 3", reason: "docs are frozen" });
    expect(ruleVerdict(config, writeFile, { path: "docs/a.md" }, place).verdict).toBe("ask");
    // An entry with approvals alone holds every call.
    expect(dev.allow).toContain("shell");
  });

  test("an agent's approvalDefault asks for that agent alone", () => {
    const config = parseConfiguration({ agents: [{ id: "careful", allow: ["write_file"], approvalDefault: "ask" }, { id: "bold", allow: ["write_file"] }] });
    expect(ruleVerdict(forAgent(config, "careful"), writeFile, { path: "a" }, place).verdict).toBe("ask");
    expect(ruleVerdict(forAgent(config, "bold"), writeFile, { path: "a" }, place).verdict).toBe("allow");
  });

  test("a prefix of external tools longer than a cut name keeps is refused, in a rule and in an allowlist (it could not be told to cover a cut tool)", () => {
    const long = `mcp__fs__${"write_".repeat(8)}*`;
    const found = refusal({ approvals: [{ call: long, verdict: "deny" }, { call: "mcp__fs__write_*", verdict: "deny" }], agents: [{ id: "dev", allow: [long, "mcp__fs__*"] }] });
    expect(found).toHaveLength(2);
    expect(found).toEqual(expect.arrayContaining([expect.stringContaining(`rule #1 names "${long}", a prefix of 57 characters before its * (at most 55`), expect.stringContaining(`agent "dev" allows "${long}", a prefix of 57 characters`)]));
  });

  test("every bad rule is named at once", () => {
    const found = refusal({
      approvals: [
        { call: "wirte_file", verdict: "deny" },
        { call: "shell", when: { path: "src/**" }, verdict: "deny" },
        { call: "write_file", verdict: "maybe" },
        { call: "write_file", when: { path: "src/[a" }, verdict: "deny" },
        { call: "*", when: { colour: "red" }, verdict: "deny" },
        { call: "read_file", when: { path: "./src/**" }, verdict: "deny" },
        "deny everything",
      ],
      approvalDefault: "sometimes",
      approvalHook: { command: "", timeoutSecs: -1 },
      approvalTimeoutSecs: 0,
      agents: [{ id: "dev", approvals: [{ call: "shell", verdict: "never" }] }],
    });
    const text = found.join("\n");
    expect(found).toHaveLength(12);
    expect(text).toContain('rule #1 names unknown call "wirte_file"');
    expect(text).toContain('rule #2 matches argument "path", which shell takes as a string; its string arguments are "command"');
    expect(text).toContain('rule #3 has verdict "maybe"; the verdicts are "allow", "ask", "deny"');
    expect(text).toContain('rule #4 has a glob for "path" that cannot be read as a glob');
    expect(text).toContain('rule #5 matches argument "colour", which no call takes');
    expect(text).toContain('rule #6 has a glob for "path" that starts with "./"');
    expect(text).toContain("rule #7 must be an object");
    expect(text).toContain('"approvalDefault" is "sometimes"');
    expect(text).toContain('"approvalHook" has command ""');
    expect(text).toContain("timeoutSecs -1");
    expect(text).toContain('"approvalTimeoutSecs" is 0');
    expect(text).toContain(`agent "dev"'s "approvals" rule #1 has verdict "never"`);
  });

  test("a batch read's ranges can be matched by path", () => {
    expect(refusal({ capabilities: [{ id: "read-file", implementation: "batch", params: { lineCap: 200 } }], approvals: [{ call: "read", when: { path: "a/**" }, verdict: "deny" }] })).toEqual([]);
  });
});
