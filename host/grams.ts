// Trigram filters: what lets a warm search skip a kept file without scanning it. A file's filter is a bit set of the
// byte trigrams it holds, hashed, each also with its ASCII letters in lower case; a search's pattern names the
// trigrams every match must hold (from the literal runs it requires), and a file whose filter lacks one of them
// cannot match. A hash collision only lets a file through to the scan, so a filter never hides a match.

/** The trigrams a match must hold: each entry lists the variants of one trigram (a case-insensitive one has several). */
export type GramQuery = number[][];

/**
 * The filter of `bytes`: a bit set of one to two bits per byte (a power of two, 512 bits to 16 Mi), so that about one
 * bit in three is set in code: a pattern's four trigrams pass a file lacking them about once in a hundred, and the
 * filters of a warm state take a sixth of its contents (two bits a byte took a third, 52 MiB for 156 MiB of files).
 * Self-contained, since the second thread runs its source.
 */
export function gramBits(bytes: Uint8Array): Uint32Array {
  let bits = 512;
  while (bits < bytes.length && bits < 1 << 24) bits *= 2;
  const set = new Uint32Array(bits >>> 5);
  const shift = 32 - Math.log2(bits);
  let gram = 0;
  let folded = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    gram = ((gram << 8) | byte) & 0xffffff;
    folded = ((folded << 8) | (byte >= 65 && byte <= 90 ? byte + 32 : byte)) & 0xffffff;
    if (i < 2) continue;
    let at = Math.imul(gram, 0x9e3779b1) >>> shift;
    set[at >>> 5] = (set[at >>> 5] as number) | (1 << (at & 31));
    if (folded === gram) continue;
    at = Math.imul(folded, 0x9e3779b1) >>> shift;
    set[at >>> 5] = (set[at >>> 5] as number) | (1 << (at & 31));
  }
  return set;
}

/** Whether a file whose filter is `set` may hold every trigram of `query`. */
export function mayHold(set: Uint32Array, query: GramQuery): boolean {
  const shift = 32 - Math.log2(set.length * 32);
  // Loops, not every/some: this runs for each kept file of each search.
  next: for (const variants of query) {
    for (const gram of variants) {
      const at = Math.imul(gram, 0x9e3779b1) >>> shift;
      if (((set[at >>> 5] as number) & (1 << (at & 31))) !== 0) continue next;
    }
    return false;
  }
  return true;
}

/** Variants a trigram may have and still be looked up (more screen too little to pay). */
const MAX_VARIANTS = 64;

const fold = (byte: number): number => (byte >= 65 && byte <= 90 ? byte + 32 : byte);

/**
 * The trigrams of runs of byte positions a match must hold in a row, each position the bytes it may be. One whose
 * positions differ only in the case of ASCII letters ([tT][oO]d) is looked up once, in lower case.
 */
export function gramQuery(runs: number[][][]): GramQuery {
  const query: GramQuery = [];
  for (const run of runs) {
    for (let i = 2; i < run.length; i++) {
      const [a, b, c] = [run[i - 2], run[i - 1], run[i]] as [number[], number[], number[]];
      const variants = a.flatMap((x) => b.flatMap((y) => c.map((z) => (x << 16) | (y << 8) | z)));
      const folds = new Set(variants.map((gram) => (fold(gram >> 16) << 16) | (fold((gram >> 8) & 255) << 8) | fold(gram & 255)));
      const oneFold = [a, b, c].every((members) => new Set(members.map(fold)).size === 1);
      if (variants.length > 1 && oneFold) query.push([...folds]);
      else if (variants.length <= MAX_VARIANTS) query.push(variants);
    }
  }
  return query;
}
