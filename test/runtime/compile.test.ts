import { describe, expect, test } from "vitest";
import { compileProgram } from "../../runtime/compile.ts";
import { engineWorkspace } from "./engine.ts";

// Each case: a program, and the failure it reports at its own line and column (1-based), never in the wrapper.
const cases: [string, string, { message: string; line: number; column: number }][] = [
  ["an expression cut short", "return 1+", { message: "Unexpected end of the program", line: 1, column: 10 }],
  ["an expression cut short, then blank lines (a file's final newline)", "return 1+\n\n  \n", { message: "Unexpected end of the program", line: 1, column: 10 }],
  ["an unclosed brace", "if (x) {\n  return 1;", { message: "Unexpected end of the program", line: 2, column: 12 }],
  ["an unclosed parenthesis", "return (1", { message: 'Expected ")" but found the end of the program', line: 1, column: 10 }],
  ["an unterminated string", "const s = 'abc", { message: "Unterminated string literal", line: 1, column: 15 }],
  ["an unterminated template", "const t = `abc", { message: "Unterminated string literal", line: 1, column: 15 }],
  ["an unterminated comment", "return 1;\n/* open", { message: 'Expected "*/" to terminate multi-line comment', line: 2, column: 8 }],
  ["a stray closing brace", "return 1; }", { message: 'Unexpected "}"; no "{" of the program is open here', line: 1, column: 11 }],
  ["a stray closing brace with lines after it", "return 1; }\nfoo();", { message: 'Unexpected "}"; no "{" of the program is open here', line: 1, column: 11 }],
];

describe("compiling a program", () => {
  for (const language of ["ts", "js"] as const) {
    for (const [name, source, failure] of cases) {
      test(`${language}: ${name} is reported at the program's own position, in words about the program`, async () => {
        expect(await compileProgram(source, language)).toEqual(failure);
      });
    }

    test(`${language}: a comment on the last line does not swallow the end of the wrapper`, async () => {
      expect(await compileProgram("return 1\n// x", language)).toHaveProperty("code");
      expect(await compileProgram("return 1 // x", language)).toHaveProperty("code");
    });

    test(`${language}: top-level await beside return is no error, even when another one follows`, async () => {
      expect(await compileProgram("const x = await f();\nreturn x +", language)).toEqual({ message: "Unexpected end of the program", line: 2, column: 11 });
    });
  }

  test("a run of a program cut short reports the end of the program, not the wrapper's brace", async () => {
    using ws = engineWorkspace();
    expect((await ws.run("return 1+")).error).toEqual({ code: "syntax-error", message: "The program does not compile: Unexpected end of the program", line: 1, column: 10 });
  });
});
