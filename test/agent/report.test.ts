// A program's report as the model reads it: the console, then the returned value as compact JSON, or the error with
// where it happened; never the program itself, which the model wrote.
import { describe, expect, test } from "vitest";
import { reportText } from "../../agent/report.ts";
import { engineWorkspace } from "../runtime/engine.ts";

describe("reportText", () => {
  test("a returned value comes back as compact JSON after the console, and the program is not echoed", async () => {
    using ws = engineWorkspace();
    const source = "console.log('counted'); return { files: ['a.ts', 'b.ts'], counts: { todo: 3, fixme: 0 }, note: 'two \"quoted\" words' };";
    const text = reportText(await ws.run(source));
    expect(text).toBe('Console:\ncounted\n\nReturned:\n{"files":["a.ts","b.ts"],"counts":{"todo":3,"fixme":0},"note":"two \\"quoted\\" words"}');
    expect(text).not.toContain("console.log");
  });

  test("a failure comes back as its code, message and position, and the calls made before it", async () => {
    using ws = engineWorkspace();
    const text = reportText(await ws.run("await gg.files.listDir();\nawait gg.files.readFile('missing.txt');"));
    expect(text).toMatch(/^error\[not-found\]: .*missing\.txt.* \(line 2, column \d+\)\n\nCalls made before it ended: files\.listDir ok, files\.readFile failed \(not-found\)$/);
  });

  test("entries past the log limit are counted, one in the singular", async () => {
    using ws = engineWorkspace();
    // Eight entries of 8,001 bytes fit the default 64 KiB; the ninth does not.
    const text = reportText(await ws.run("for (let i = 0; i < 9; i++) console.log(String(i).repeat(8000));"));
    expect(text).toContain(`\n${"7".repeat(8000)}\n[1 more entry dropped at the log limit]\n`);
  });
});
