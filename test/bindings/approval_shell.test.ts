import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { judgeCall } from "../../bindings/approval_shell.ts";
import { parseConfiguration } from "../../bindings/config.ts";
import { loadShellParser, type ParseShell } from "../../host/shell_parser.ts";
import { ALLOWLIST, HIDDEN, PUSHES, SIDE_WRITES, UNKNOWNS } from "./shell_shapes.ts";

const place = { workspace: "/ws", cwd: "/ws" };
const shell = { name: "shell", effects: true, paths: false };
const denyPush = parseConfiguration({ approvals: [{ call: "shell", when: { command: "git push*" }, verdict: "deny", reason: "pushing is for people" }] });
const verdictOf = async (command: string, config = denyPush): Promise<string> => (await judgeCall(config, shell, { command }, place)).verdict;

let parse: ParseShell;
beforeAll(async () => {
  parse = await loadShellParser();
});

describe("shell rules judge the commands a line runs", () => {
  it.each(PUSHES)("denies %j under a deny of git push*", async (command) => {
    const ruled = await judgeCall(denyPush, shell, { command }, place);
    expect(ruled).toMatchObject({ verdict: "deny", by: "rule 1", reason: "pushing is for people" });
  });

  it.each(UNKNOWNS)("asks about %j, whose command only run time knows", async (command) => {
    const ruled = await judgeCall(denyPush, shell, { command }, place);
    expect(ruled.verdict).toBe("ask");
    expect(ruled.by).toBe("rule 1");
    expect(ruled.reason).toMatch(/^gg cannot judge this command line before it runs: .+, and rule 1 could apply to it$/);
  });

  it.each(["git status", "echo $HOME", "ls *.ts", "echo 'git push'", "git commit -m \"$msg\"", "cat <<EOF\ngit push\nEOF", "sh script.sh", "git pushy-thing && ls", "command -v git", "# git push"])(
    "allows %j, which runs no git push and whose unknowns no rule could match",
    async (command) => {
      // `git pushy-thing` matches the glob `git push*` as words joined: only the first are allowed here.
      const expected = command.startsWith("git pushy") ? "deny" : "allow";
      expect(await verdictOf(command)).toBe(expected);
    },
  );

  it("says what could not be judged", async () => {
    expect((await judgeCall(denyPush, shell, { command: "x=push; git $x" }, place)).reason).toContain('a word of "git $x", "$x", is known only at run time');
    expect((await judgeCall(denyPush, shell, { command: "echo 'git push' | sh" }, place)).reason).toContain("the script sh reads from its standard input");
    expect((await judgeCall(denyPush, shell, { command: "git push ((" }, place)).reason).toContain("does not parse");
  });

  it("applies an allowing rule to each command, so a chained command cannot ride on it", async () => {
    const config = parseConfiguration({ approvalDefault: "ask", approvals: [{ call: "shell", when: { command: "git status*" }, verdict: "allow" }] });
    expect(await verdictOf("git status", config)).toBe("allow");
    expect(await verdictOf("git status && rm -rf /", config)).toBe("ask");
    expect(await verdictOf("git status $(rm -rf /)", config)).toBe("ask");
  });

  it("judges each redirection's target as write_file would be", async () => {
    const config = parseConfiguration({ approvals: [{ call: "write_file", when: { path: "secrets/**" }, verdict: "deny" }, { call: "write_file", when: { path: `${process.env.HOME}/.bashrc` }, verdict: "deny" }] });
    for (const command of ["echo x > secrets/a", "echo x >> ./secrets/a", "ls 2> secrets/a", "ls &> secrets/a", "echo x >| secrets/a", "ls >&secrets/a", "echo x > ~/.bashrc", "sh -c 'echo x > secrets/a'", "(echo x) > secrets/a"]) {
      expect([command, await verdictOf(command, config)]).toEqual([command, "deny"]);
    }
    for (const command of ["echo x > out.txt", "ls 2>&1 >/dev/null", "cat < secrets/a"]) expect([command, await verdictOf(command, config)]).toEqual([command, "allow"]);
    for (const command of ["echo x > $f", "cd secrets && echo x > a"]) expect([command, await verdictOf(command, config)]).toEqual([command, "ask"]);
  });

  it("loads the parser on first need, in a fresh process: the inline decision waits for it (undefined), then decides", () => {
    const root = join(import.meta.dirname, "../..");
    const script = `import { callContext } from "${root}/bindings/index.ts";
import { decideNow, decision } from "${root}/bindings/gate.ts";
import { shell } from "${root}/bindings/shell.ts";
const context = callContext({ workspace: process.cwd(), config: ${JSON.stringify({ approvals: [{ call: "shell", when: { command: "git push*" }, verdict: "deny" }] })}, warm: false });
const args = { command: "true && git push" };
const first = decideNow(shell, args, context) ?? null;
const decided = await decision(shell, args, context, { from: "tool", seq: 0 });
console.log(JSON.stringify([first, decided.verdict, decideNow(shell, args, context)?.verdict]));`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect([run.stderr, JSON.parse(run.stdout)]).toEqual(["", [null, "deny", "deny"]]);
    // A fresh Node compiling the sources and the grammar: slow on a loaded machine.
  }, 180_000);

  it("parses nothing when no rule needs it: a line under rules for other calls is not read", async () => {
    const config = parseConfiguration({ approvals: [{ call: "read_file", when: { path: "secrets/**" }, verdict: "deny" }] });
    expect(await verdictOf("git push ((", config)).toBe("allow");
  });
});

describe("fail closed: what gg cannot name is asked, and an allowlist does not cover it", () => {
  const allowlist = parseConfiguration(ALLOWLIST);

  it.each(HIDDEN)("asks about %j under an allowlist of what it seems to run, naming %j", async (command, part) => {
    const ruled = await judgeCall(allowlist, shell, { command }, place);
    expect([ruled.verdict, ruled.part]).toEqual(["ask", part]);
  });

  it("allows what the allowlist names whatever a word becomes, and asks where the glob or the name depends on it", async () => {
    const config = parseConfiguration({ approvalDefault: "ask", approvals: ["cat*", "ls *.txt", "git status*", "sed*", "tar*"].map((command) => ({ call: "shell", when: { command }, verdict: "allow" })) });
    const allowed = ["cat $f", "cat a.txt | cat", "git status --short", "sed -n '1,/x/p;s|a|b|g' a", "sed -e '/^#/d' -e 's/e/E/g;y/ab/cd/' a", "sed -i.bak 's/x/y/w out.txt' a", "sed '$a\\\nend' a", "tar xf a.tar", "tar -czf a.tgz dir", "sed --sandbox 's/.*/x/e' a"];
    for (const command of allowed) expect([command, await verdictOf(command, config)]).toEqual([command, "allow"]);
    const asked = ["cat$x", "$x a.txt", "ls $f", "cat a ((", "cat `", "sed -f script.sed a", "sed \"$s\" a", "tar cIf 'rm -rf x' a.tar ."];
    for (const command of asked) expect([command, await verdictOf(command, config)]).toEqual([command, "ask"]);
    expect((await judgeCall(config, shell, { command: "cat a ((" }, place)).reason).toBe('gg cannot judge this command line before it runs: it does not parse as a shell command line, and approvalDefault "ask" could apply to it');
  });

  it("asks about a redirection through a descriptor, /proc or another directory under a rule on writes; /dev/stdout alone is no file", async () => {
    const config = parseConfiguration({ approvals: [{ call: "write_file", when: { path: "secrets/**" }, verdict: "deny" }] });
    for (const command of SIDE_WRITES) {
      const ruled = await judgeCall(config, shell, { command }, place);
      expect([command, ruled.verdict, ruled.part]).toEqual([command, "ask", expect.stringMatching(/^> /)]);
    }
    for (const command of ["echo x > /dev/stdout", "cat < secrets/a > /dev/stderr", "echo x > /dev/null"]) expect([command, await verdictOf(command, config)]).toEqual([command, "allow"]);
  });

  it("names each part that asks, the deciding one first in the record", async () => {
    const ruled = await judgeCall(parseConfiguration(ALLOWLIST), shell, { command: "cat a; rm -rf x; echo 'git push' | sh" }, place);
    expect(ruled).toMatchObject({ verdict: "ask", part: "rm -rf x", parts: ["rm -rf x", "sh"] });
  });
});

describe("the parser's reading of a line", () => {
  it("gives each simple command's words with quotes and escapes removed, assignments dropped", () => {
    const script = parse(`A=1 "g"'i'\\t p"us"h; echo "a \\"b\\" \\$c" 'd e' $'\\t'`);
    expect(script.commands.map((words) => words.map((word) => word.text))).toEqual([["git", "push"], ["echo", 'a "b" $c', "d e", "\t"]]);
    expect(script.unjudged).toEqual([]);
  });

  it("reads words as bash itself does: the words printed by a real bash are the ones read", () => {
    const words = [`"g"'i'\\t`, `p"us"h`, `\\git`, `'a b'"c d"`, `"a \\" \\$ \\\\ \\x"`, `a\\ b`, `$'\\x67\\t\\101\\u00e9\\n'`, `"x"'y'z`, `""`, `''`, `é"ü"`, `\\*`, `'*'`, `-"-"flag=1`];
    const line = `printf '%s\\0' ${words.join(" ")}`;
    const printed = spawnSync("bash", ["-c", line], { encoding: "utf8" }).stdout.split("\0").slice(0, -1);
    const [read] = parse(line).commands;
    expect(read?.slice(2)).toEqual(printed.map((text) => ({ text })));
    expect(printed).toHaveLength(words.length);
  });

  it("marks the words only run time knows, from where they become unknown", () => {
    const [words] = parse('cp pre$x "a${y}" *.ts ~/f').commands;
    expect(words).toEqual([{ text: "cp" }, { text: "pre$x", open: 3 }, { text: "a${y}", open: 1 }, { text: "*.ts", open: 0 }, { text: `${process.env.HOME}/f` }]);
  });

  it("lists the files redirections write, not the ones they read or the descriptors they copy", () => {
    expect(parse("a > w1 2>> w2 < r 2>&1 >&- &> w3 >| w4 3<&0").writes.map((word) => word.text)).toEqual(["w1", "w2", "w3", "w4"]);
  });

  it("keeps a backquote's body, escapes removed, and every assignment, for what runs them to read", () => {
    const script = parse("A='$(x)' B=\"\\`y\\`\" C=1 cat `echo \\`rm a\\`` ${v:-`rm b`} ${v/a/`rm c`} 3<in < stdin");
    expect(script.scripts).toEqual(["echo `rm a`", "rm b", "rm c"]);
    expect(script.assignments.map(({ name, storesCode }) => [name, storesCode])).toEqual([["A", true], ["B", true], ["C", false]]);
    expect(script.reads.map((word) => word.text)).toEqual(["in"]);
  });

  it("refuses a line that does not parse, and one nested past its bound", () => {
    expect(parse("echo ((").unjudged).toEqual(["it does not parse as a shell command line"]);
    expect(parse(`${"$(".repeat(300)}x${")".repeat(300)}`).unjudged).toContain("it nests deeper than 200 levels");
  });
});
