// A command line's syntax tree (tree-sitter-bash) read as what the shell would run: every simple command it can
// reach, each as its words once quotes and escapes are removed, the files its redirections write, and what cannot be
// known before it runs. Pure: the tree in (as plain nodes), plain data out.

/** A node of the syntax tree, copied out of the parser in one pass (its own node objects cost a call each). */
export interface Syntax {
  type: string;
  /** Named in the grammar (a word, a command), not punctuation or an operator. */
  named: boolean;
  text: string;
  /** Where it starts and ends in the line, in UTF-16 units. */
  start: number;
  end: number;
  children: Syntax[];
}

/**
 * A word as the shell hands it to a command: quotes and escapes removed, a leading `~` expanded. `open` is the offset
 * in `text` from which the word is known only at run time (an expansion, a file-name glob, a brace expansion); from
 * there on `text` is as written.
 */
export interface ShellWord {
  text: string;
  open?: number;
}

/** What a command line runs, as far as it can be known before it runs. */
export interface ShellScript {
  /** Every simple command, leading assignments dropped: its words, the command's name first. */
  commands: ShellWord[][];
  /** The targets of redirections that write a file (`>`, `>>`, `>|`, `&>`, `&>>`, `>&`, `2>`). */
  writes: ShellWord[];
  /** Why some of it cannot be judged (it does not parse, it nests too deep). */
  unjudged: string[];
}

/** Redirection operators that write the file they name (with a number after `>&`, it copies a descriptor instead). */
const WRITES = new Set([">", ">>", ">|", "&>", "&>>", ">&", "<>"]);
/** Nesting past this is not followed: the line is refused as unjudged rather than the stack risked. */
const MAX_DEPTH = 200;

const known = (text: string): ShellWord => ({ text });
const unknown = (text: string, open = 0): ShellWord => ({ text, open });

/** `a` then `b`, as one word. */
const join = (a: ShellWord, b: ShellWord): ShellWord => {
  const text = a.text + b.text;
  if (a.open !== undefined) return unknown(text, a.open);
  return b.open === undefined ? known(text) : unknown(text, a.text.length + b.open);
};

/** An unquoted word's text: escapes removed; open at its first unescaped glob character. */
function unquoted(raw: string): ShellWord {
  let text = "";
  let open: number | undefined;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i] as string;
    if (char === "\\") {
      i++;
      // A backslash before a newline joins the lines; before anything else it stands for what follows.
      if (i < raw.length && raw[i] !== "\n") text += raw[i];
      continue;
    }
    if (open === undefined && (char === "*" || char === "?" || char === "[")) open = text.length;
    text += char;
  }
  return open === undefined ? known(text) : unknown(text, open);
}

/** A double-quoted piece's text: `\` escapes only `$`, `` ` ``, `"`, `\` and a newline there. */
const doubleQuoted = (raw: string): string => raw.replace(/\\([$`"\\\n])/g, (_, char: string) => (char === "\n" ? "" : char));

const C_ESCAPES: Record<string, string> = { a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };

/** A `$'...'` string's text, its C escapes decoded; open at an escape gg does not decode. */
function ansiC(raw: string): ShellWord {
  let text = "";
  const body = raw.slice(2, -1);
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== "\\") {
      text += body[i];
      continue;
    }
    const rest = body.slice(i + 1);
    const code = /^(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3}))/.exec(rest);
    if (code) {
      const point = code[4] === undefined ? Number.parseInt((code[1] ?? code[2] ?? code[3]) as string, 16) : Number.parseInt(code[4], 8);
      if (point > 0x10ffff) return unknown(text + body.slice(i), text.length);
      text += String.fromCodePoint(point);
      i += code[0].length;
    } else if (rest[0] !== undefined && rest[0] in C_ESCAPES) {
      text += C_ESCAPES[rest[0]];
      i++;
    } else return unknown(text + body.slice(i), text.length);
  }
  return known(text);
}

/** A leading `~` as the shell expands it: `~` and `~/...` are the home folder; `~user`, `~+`, `~-` are open. */
function tilde(word: ShellWord): ShellWord {
  if (!word.text.startsWith("~")) return word;
  const end = word.text.indexOf("/");
  if ((end === -1 ? word.text.length : end) !== 1) return unknown(word.text);
  const home = process.env.HOME ?? "";
  return word.open === undefined ? known(home + word.text.slice(1)) : unknown(home + word.text.slice(1), word.open + home.length - 1);
}

/** The pieces of a double-quoted string, joined: literal runs, and expansions open. */
function quoted(node: Syntax): ShellWord {
  let word = known("");
  for (const child of node.children) {
    if (!child.named) continue;
    word = join(word, child.type === "string_content" ? known(doubleQuoted(child.text)) : unknown(child.text));
  }
  return word;
}

/** One argument node as the word the shell makes of it. */
function wordOf(node: Syntax, first = true): ShellWord {
  switch (node.type) {
    case "word":
      return first ? tilde(unquoted(node.text)) : unquoted(node.text);
    case "number":
      return known(node.text);
    case "raw_string":
      return known(node.text.slice(1, -1));
    case "string":
    case "translated_string":
      return quoted(node);
    case "ansi_c_string":
      return ansiC(node.text);
    case "concatenation": {
      // `{a,b}` is a brace expansion in bash: which words it makes is left to run time.
      if (/\{[^{}]*(,|\.\.)[^{}]*\}/.test(node.text)) return unknown(node.text);
      let word = known("");
      node.children.forEach((child, index) => {
        if (child.named) word = join(word, wordOf(child, first && index === 0));
      });
      return word;
    }
    default:
      return unknown(node.text);
  }
}

/** The file a redirection writes, or undefined when it reads, copies a descriptor or closes one. */
function written(node: Syntax): Syntax | undefined {
  const at = node.children.findIndex((child) => !child.named);
  const operator = node.children[at]?.type ?? "";
  // The destination is what follows the operator (a descriptor number may come before it).
  const destination = node.children.slice(at + 1).find((child) => child.named);
  if (!destination || !WRITES.has(operator)) return undefined;
  // `>&2`, `2>&1` and `>&-` copy or close a descriptor.
  if ((operator === ">&" || operator === "<&") && /^(\d+|-)$/.test(destination.text)) return undefined;
  return destination;
}

/** Reads one simple command (its words; what it nests is walked on). */
function command(node: Syntax, script: ShellScript, depth: number): void {
  const words: ShellWord[] = [];
  let end = -1;
  for (const child of node.children) {
    if (!child.named) continue;
    const part = child.type === "command_name" ? child.children.find((name) => name.named) : child.type === "variable_assignment" || child.type.endsWith("redirect") ? undefined : child;
    if (part) {
      // The grammar splits some words the shell keeps whole (`"g"'i'\t`): pieces with no blank between are one word.
      if (child.start === end) words.push(join(words.pop() as ShellWord, wordOf(part, false)));
      else words.push(wordOf(part));
      end = child.end;
    }
    walk(child, script, depth + 1);
  }
  if (words.length > 0) script.commands.push(words);
}

/** Walks `node` for the commands and redirections it holds, at any depth. */
function walk(node: Syntax, script: ShellScript, depth: number): void {
  if (depth > MAX_DEPTH) {
    if (script.unjudged.length === 0 || !script.unjudged.at(-1)?.startsWith("it nests")) script.unjudged.push(`it nests deeper than ${MAX_DEPTH} levels`);
    return;
  }
  if (node.type === "command") return command(node, script, depth);
  if (node.type === "declaration_command" || node.type === "unset_command") {
    // `export A=1`, `unset -f f`: the keyword then its words, judged as a command.
    const keyword = node.children[0]?.type ?? node.type;
    const words = node.children.filter((child) => child.named && child.type !== "variable_assignment").map((child) => wordOf(child));
    script.commands.push([known(keyword), ...words]);
  }
  if (node.type === "file_redirect") {
    const target = written(node);
    if (target) script.writes.push(wordOf(target));
  }
  for (const child of node.children) if (child.named) walk(child, script, depth + 1);
}

/** The plain reading of a parsed line (`failed`: the parser found errors in it): its commands, writes, unknowns. */
export function scriptOf(root: Syntax, failed: boolean): ShellScript {
  const script: ShellScript = { commands: [], writes: [], unjudged: [] };
  if (failed) script.unjudged.push("it does not parse as a shell command line");
  walk(root, script, 0);
  return script;
}
