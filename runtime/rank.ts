// Ranking by words, for gg docs --search and gg.mcp.search: a query's words against a thing's fields, each field
// weighted (its name counts more than its description).

/** Lower-case words of `text`, camelCase, snake, kebab and dotted names split: "gg.files.readFile" → gg, files, read, file. */
export const words = (text: string): string[] =>
  text
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 || /\d/.test(word));

/** Whether `word` is `term`, or `term` a prefix of it long enough to mean it (read → reads, reading). */
const meets = (word: string, term: string): boolean => word === term || (term.length >= 3 && word.startsWith(term));

/** The score of `fields` (each a text's words and its weight) for the query's `terms`: each term counts its best field's weight. */
export const scoreOf = (terms: readonly string[], fields: readonly [string[], number][]): number =>
  terms.reduce((sum, term) => sum + Math.max(0, ...fields.map(([found, weight]) => (found.some((word) => meets(word, term)) ? weight : 0))), 0);
