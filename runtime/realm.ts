// What a program leaves in its session's realm: the names its top-level declarations bind. The program runs as the
// body of an async function, so these are locals; the compiled program hands the sandbox a getter (and a setter
// where the binding can change) for each, which the shim installs on globalThis when the program ends, so the next
// program reads and writes the same bindings, as in a notebook.
import { createRequire } from "node:module";
import { type Static, Type } from "typebox";
import type ts from "typescript";

/** A program's language (compile.ts's Language, spelled here so neither file imports the other). */
type Language = "ts" | "js";

/** One top-level name of a program: whether it is a const (no setter). */
export interface TopLevelName {
  name: string;
  constant: boolean;
}

let compiler: typeof ts | undefined;
/** TypeScript's parser, loaded on the first program of a session that keeps state (synchronous: compiling is). */
export const typescript = (): typeof ts => (compiler ??= createRequire(import.meta.url)("typescript") as typeof ts);

/** The top-level statements of `source` that declare something, as TypeScript parses the program, and its file. */
function topLevelStatements(source: string, language: Language): { file: ts.SourceFile; statements: ts.Statement[] } {
  const tsc = typescript();
  const file = tsc.createSourceFile(`program.${language}`, source, tsc.ScriptTarget.ES2024, false, language === "ts" ? tsc.ScriptKind.TS : tsc.ScriptKind.JS);
  const statements = file.statements.filter((statement) => {
    if (tsc.canHaveModifiers(statement) && tsc.getModifiers(statement)?.some((modifier) => modifier.kind === tsc.SyntaxKind.DeclareKeyword)) return false;
    return tsc.isVariableStatement(statement) || tsc.isFunctionDeclaration(statement) || tsc.isClassDeclaration(statement) || tsc.isEnumDeclaration(statement) || tsc.isInterfaceDeclaration(statement) || tsc.isTypeAliasDeclaration(statement);
  });
  return { file, statements };
}

/**
 * The top-level declarations of a TypeScript program as written, each with the names it declares, types included:
 * what a later program's type-check is given of it (check.ts).
 */
export function topLevelDeclarations(source: string): { names: string[]; text: string }[] {
  const tsc = typescript();
  const { file, statements } = topLevelStatements(source, "ts");
  return statements.map((statement) => {
    const names = tsc.isVariableStatement(statement)
      ? statement.declarationList.declarations.flatMap((declaration) => bindingNames(declaration.name))
      : [(statement as ts.DeclarationStatement).name?.getText(file) ?? ""];
    return { names: names.filter((name) => name !== ""), text: source.slice(statement.getStart(file), statement.end) };
  });
}

/** The identifiers a binding name or pattern binds. */
function bindingNames(node: ts.BindingName): string[] {
  const tsc = typescript();
  if (tsc.isIdentifier(node)) return [node.text];
  return node.elements.flatMap((element) => (tsc.isOmittedExpression(element) ? [] : bindingNames(element.name)));
}

/** The value names the top-level declarations of `source` bind (types bind none at run time), each once. */
export function topLevelNames(source: string, language: Language): TopLevelName[] {
  const tsc = typescript();
  const names = new Map<string, boolean>();
  const bind = (node: ts.BindingName, constant: boolean): void => {
    for (const name of bindingNames(node)) names.set(name, constant);
  };
  for (const statement of topLevelStatements(source, language).statements) {
    if (tsc.isVariableStatement(statement)) {
      const flags = statement.declarationList.flags;
      // `using` bindings are disposed as the program ends: nothing of them is left to keep.
      if (flags & tsc.NodeFlags.Using) continue;
      for (const declaration of statement.declarationList.declarations) bind(declaration.name, (flags & tsc.NodeFlags.Const) !== 0);
    } else if ((tsc.isFunctionDeclaration(statement) || tsc.isClassDeclaration(statement) || tsc.isEnumDeclaration(statement)) && statement.name) {
      if (tsc.isEnumDeclaration(statement) && tsc.getModifiers(statement)?.some((modifier) => modifier.kind === tsc.SyntaxKind.ConstKeyword)) continue;
      names.set(statement.name.text, false);
    }
  }
  return [...names].map(([name, constant]) => ({ name, constant }));
}

/**
 * The head line's call handing the shim the program's bindings: `[name, getter, setter]` each (a const's refuses). Closures made before
 * the body runs see its bindings (hoisted, uninitialized until their declaration runs: the shim keeps only those
 * initialized when the program ends).
 */
export function keepCall(names: readonly TopLevelName[]): string {
  const refusal = (name: string): string => JSON.stringify(`Assignment to constant variable '${name}', declared by an earlier program; declare it again (const or let) to replace it`);
  const setter = (name: string, constant: boolean): string => (constant ? `() => { throw new TypeError(${refusal(name)}); }` : `(value) => { ${name} = value; }`);
  const entries = names.map(({ name, constant }) => `[${JSON.stringify(name)}, () => ${name}, ${setter(name, constant)}]`);
  return `__gg_keep([${entries.join(", ")}]);`;
}

/** One name the realm holds, as gg.context.state lists it. */
export const HeldName = Type.Object(
  {
    name: Type.String(),
    kind: Type.String({ description: "function, class, array, map, set, object, or typeof a primitive." }),
    bytes: Type.Integer({ description: "A guess at its size: a lower bound past 5000 values." }),
  },
  { $id: "HeldName", description: "A name earlier programs of the session left in the realm." },
);
export type HeldName = Static<typeof HeldName>;

/** What the shim says the realm holds, checked field by field (the guest is trusted with nothing). */
export function readHeld(json: unknown): HeldName[] {
  let list: unknown;
  try {
    list = typeof json === "string" ? JSON.parse(json) : undefined;
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  return list.flatMap((item: Partial<Record<keyof HeldName, unknown>>) =>
    item && typeof item.name === "string" && typeof item.kind === "string" && typeof item.bytes === "number"
      ? [{ name: item.name.slice(0, 200), kind: item.kind.slice(0, 20), bytes: Math.max(0, Math.round(item.bytes)) }]
      : [],
  );
}
