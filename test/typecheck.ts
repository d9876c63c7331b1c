// Test helper: TypeScript's diagnostics for files held in memory, strict, with the libraries named (an editor's view of
// gg.d.ts, or a program's as gg checks it).
import ts from "typescript";

/** The messages TypeScript gives for `files` (path to text) under strict mode and `lib`, none when they type-check. */
export function diagnostics(files: Map<string, string>, lib: string[] = ["lib.esnext.d.ts"]): string[] {
  const options = { strict: true, noEmit: true, lib, types: [], module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ESNext };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (name) => files.get(name) ?? read(name);
  host.fileExists = (name) => files.has(name) || ts.sys.fileExists(name);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, target) => (files.has(name) ? ts.createSourceFile(name, files.get(name) as string, target) : getSourceFile(name, target));
  const program = ts.createProgram([...files.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}
