// Rename a symbol across the workspace with editFile. Each edit must match exactly one place, so every occurrence
// is replaced with just enough of its surrounding lines to be unique, one edit at a time.
const FROM = "fetchUser";
const TO = "loadUser";
const word = new RegExp(`\\b${FROM}\\b`, "g");
const hits = await gg.files.search(`\\b${FROM}\\b`, { limit: 200 });
if (hits.startsWith("No matches")) return `no ${FROM} found`;
const files = [...new Set(hits.split("\n").map((line) => line.slice(0, line.indexOf(":"))))];
let edits = 0;
for (const path of files) {
  for (;;) {
    const text = await gg.files.readFile(path, { limit: 1_000_000 });
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
    edits++;
  }
}
return `renamed ${FROM} to ${TO}: ${edits} edits in ${files.length} files`;
