// Rename a symbol across the workspace with editFile. Each edit must match exactly one place, so every occurrence
// is replaced with just enough of its surrounding lines to be unique, one edit at a time. A search that reached its
// limit may have missed files, so the search runs again until one comes back complete.
const FROM = "fetchUser";
const TO = "loadUser";
const word = new RegExp(`\\b${FROM}\\b`, "g");
const renamed = new Set<string>();
let edits = 0;
for (;;) {
  const before = edits;
  const { matches, limitReached } = await gg.files.search(`\\b${FROM}\\b`, { limit: 200 });
  for (const path of new Set(matches.map((match) => match.path))) {
    for (;;) {
      const text = await gg.files.readFile(path, { limit: 1_000_000 });
      if (typeof text !== "string") break;
      const lines = text.split("\n");
      const at = lines.findIndex((line) => word.test(line));
      word.lastIndex = 0;
      if (at === -1) break;
      let [from, to] = [at, at];
      const span = () => lines.slice(from, to + 1).join("\n");
      while (text.indexOf(span()) !== text.lastIndexOf(span()) && (from > 0 || to < lines.length - 1)) {
        if (from > 0) from--;
        if (to < lines.length - 1) to++;
      }
      await gg.files.editFile(path, span(), span().replace(word, TO));
      renamed.add(path);
      edits++;
    }
  }
  // Done when the search was complete, or when a pass changed nothing (what is left is beyond what readFile reads).
  if (!limitReached || edits === before) break;
}
return edits === 0 ? `no ${FROM} found` : `renamed ${FROM} to ${TO}: ${edits} edits in ${renamed.size} files`;
