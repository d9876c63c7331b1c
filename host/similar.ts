// The nearest of some known names to one mistyped: what a "did you mean" offers.

/** Edits (insert, delete, replace, swap two neighbours) between `a` and `b`: the optimal string alignment distance. */
function distance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const up = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** The known names nearest to `name` (a few edits, under two fifths of it, case aside: READ_FILE is read_file), closest first; none when nothing is near. */
export function similarNames(name: string, known: readonly string[]): string[] {
  const near = known.map((candidate) => ({ candidate, edits: distance(name.toLowerCase(), candidate.toLowerCase()) })).filter(({ candidate, edits }) => candidate !== name && edits <= Math.max(1, Math.floor(Math.max(name.length, candidate.length) * 0.4)));
  const best = Math.min(...near.map(({ edits }) => edits));
  return near.filter(({ edits }) => edits === best).map(({ candidate }) => candidate);
}
