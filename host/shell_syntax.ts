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

/** A variable the line sets (`A=1 cmd`, `A=1;`, `export A=1`): its name and its value as the shell makes it. */
export interface ShellAssignment {
  name: string;
  value: ShellWord;
  /** Its value holds a command substitution as text (`'$(x)'`, `"\`x\`"`): code stored for later, not run here. */
  storesCode: boolean;
  /** The assignment as written, for a message. */
  written: string;
}

/** What a command line runs, as far as it can be known before it runs. */
export interface ShellScript {
  /** Every simple command, leading assignments dropped: its words, the command's name first. */
  commands: ShellWord[][];
  /** The targets of redirections that write a file (`>`, `>>`, `>|`, `&>`, `&>>`, `>&`, `2>`). */
  writes: ShellWord[];
  /**
   * The files redirections read onto a descriptor other than standard input (`1<f`, `3<f`): a command can reopen such a
   * descriptor for writing (`> /dev/stdout`), writing the file.
   */
  reads: ShellWord[];
  /** Every variable it sets, before a command or on its own. */
  assignments: ShellAssignment[];
  /**
   * Scripts the shell parses again when it runs the line, which this parse did not read: the body of a backquote
   * substitution (`\`...\``) with its escapes removed, one inside `${...}` included.
   */
  scripts: string[];
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

/**
 * The body of a backquote substitution as the shell parses it again: inside backquotes a backslash escapes only `$`,
 * `` ` ``, `\\` and a newline, so `` `echo \`rm x\`` `` runs `echo `rm x``, a substitution inside.
 */
const backquoteBody = (text: string): string => text.slice(1, text.endsWith("`") && text.length > 1 ? -1 : undefined).replace(/\\([$`\\\n])/g, (_, char: string) => (char === "\n" ? "" : char));

/** The backquote substitutions written in `text` (a word the grammar did not split, as inside `${...}`): each body. */
function backquotesIn(text: string): string[] {
  const bodies: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === "`") {
      if (start === -1) start = i;
      else {
        bodies.push(backquoteBody(text.slice(start, i + 1)));
        start = -1;
      }
    }
  }
  if (start !== -1) bodies.push(backquoteBody(text.slice(start)));
  return bodies;
}

/** Leaves of an expansion (`${x:-WORD}`, `${x/PAT/REP}`) the grammar keeps whole, though the shell expands them. */
const EXPANDED_LEAVES = new Set(["word", "regex", "string_content"]);

/** Whether a leaf of a value holds a substitution as text (`$(`, a backquote), kept for a later expansion to run. */
const storedCode = (node: Syntax): boolean => {
  if (node.type === "command_substitution" || node.type === "process_substitution") return false;
  if (["word", "raw_string", "ansi_c_string", "string_content"].includes(node.type)) return /\$\(|`|<\(|>\(/.test(wordOf(node, false).text);
  return node.children.some(storedCode);
};

/** Adds a `NAME=VALUE` (or `NAME+=VALUE`, `NAME[i]=VALUE`) node to the script's assignments. */
function assignment(node: Syntax, script: ShellScript): void {
  const [name, ...rest] = node.children.filter((child) => child.named);
  const value = rest.at(-1);
  script.assignments.push({
    name: (name?.type === "subscript" ? name.children.find((child) => child.named)?.text : name?.text) ?? "",
    value: value ? wordOf(value, false) : known(""),
    storesCode: value !== undefined && storedCode(value),
    written: node.text,
  });
}

/** The file a redirection reads onto a descriptor other than standard input (`1<f`, `3<&f`), or undefined. */
function read(node: Syntax): Syntax | undefined {
  const at = node.children.findIndex((child) => !child.named);
  const operator = node.children[at]?.type ?? "";
  const descriptor = node.children.slice(0, at).find((child) => child.type === "file_descriptor")?.text ?? "0";
  const source = node.children.slice(at + 1).find((child) => child.named);
  if (!source || descriptor === "0" || (operator !== "<" && operator !== "<&")) return undefined;
  return operator === "<&" && /^(\d+|-)$/.test(source.text) ? undefined : source;
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

/** A leaf of `${...}` the grammar did not read: its backquotes are scripts, and a `$(` in it cannot be judged. */
function expandedLeaf(leaf: Syntax, script: ShellScript): void {
  script.scripts.push(...backquotesIn(leaf.text));
  const rest = leaf.text.replace(/`(?:\\.|[^`\\])*`?/g, "");
  if (/\$\(|<\(|>\(/.test(rest)) script.unjudged.push(`a substitution inside \${...}, ${JSON.stringify(leaf.text)}, is not read by gg's parser`);
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
    const source = target ? undefined : read(node);
    if (source) script.reads.push(wordOf(source));
  }
  if (node.type === "variable_assignment") assignment(node, script);
  // A backquote substitution's body is parsed again by the shell, escapes removed: read it as its own script.
  if (node.type === "command_substitution" && node.text.startsWith("`")) return void script.scripts.push(backquoteBody(node.text));
  if (node.type === "expansion") for (const leaf of node.children) if (EXPANDED_LEAVES.has(leaf.type)) expandedLeaf(leaf, script);
  for (const child of node.children) if (child.named) walk(child, script, depth + 1);
}

/** The plain reading of a parsed line (`failed`: the parser found errors in it): its commands, writes, unknowns. */
export function scriptOf(root: Syntax, failed: boolean): ShellScript {
  const script: ShellScript = { commands: [], writes: [], reads: [], assignments: [], scripts: [], unjudged: [] };
  if (failed) script.unjudged.push("it does not parse as a shell command line");
  walk(root, script, 0);
  return script;
}
