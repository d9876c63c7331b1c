// Generated from gg's declarations; do not edit.

/** What gg.files.readFile returns for a PNG, JPEG, GIF or WebP file: its descriptor, never its pixels. */
interface ImageValue extends ImageDescriptor {
  shown: false;
  /** Where the picture can be seen. */
  reason: string;
}

/** What a read of a picture says about it, whether or not the picture travels with it. */
interface ImageDescriptor {
  /** The path as given. */
  label: string;
  /** "PNG", "JPEG", "GIF" or "WebP". */
  format: string;
  mime: string;
  /** Size of the file in bytes. */
  bytes: number;
  /** Pixels, when the header could be read. */
  width?: number;
  height?: number;
}

/** What gg.files.writeFile wrote. */
interface WriteResult {
  /** The file, as the call named it. */
  path: string;
  /** Bytes written (the content as UTF-8). */
  bytes: number;
  /** Lines written. */
  lines: number;
  /** True when the file did not exist before. */
  created: boolean;
}

/** Where gg.files.editFile made its one replacement. */
interface EditResult {
  /** The file, as the call named it. */
  path: string;
  /** 1-based line where the replacement starts. */
  line: number;
  /** Lines the replaced text spanned. */
  oldLines: number;
  /** Lines the replacement spans. */
  newLines: number;
}

/** What gg.files.listDir lists: one directory's entries. */
interface ListDirResult {
  /** Every entry, in path order. */
  entries: DirEntry[];
}

/** One entry of a directory. */
interface DirEntry {
  /** The entry's name within its directory. */
  name: string;
  kind: EntryKind;
  /** For a symlink: what it points to ("other" for a device, a socket, or nothing). */
  linksTo?: "file" | "dir" | "other";
}

/** What an entry is; a symbolic link is a "symlink" whatever it points to. */
type EntryKind = "file" | "dir" | "symlink" | "other";

/** What gg.files.tree renders: its text, and the entries it shows as data. */
interface TreeResult {
  /** The tree as the tree tool renders it. */
  text: string;
  /** The entries the text shows, in its order. */
  entries: TreeEntry[];
  /** True when the tree was cut at 1000 lines or 16 KiB: entries past the cut are missing. */
  cut: boolean;
  /** When the ignore rules (.gitignore, .ignore, .git/info/exclude, .git) left entries out of the directories whose entries the tree shows: how many. */
  ignored?: number;
}

/** One entry a tree shows. */
interface TreeEntry {
  /** The entry's path: the call's path joined with its path below it. */
  path: string;
  kind: EntryKind;
  /** For a symlink: what it points to ("other" for a device, a socket, or nothing). */
  linksTo?: "file" | "dir" | "other";
  /** Level below the root: 1 for the root's own entries. */
  depth: number;
  /** For a directory at the depth bound: how many entries it holds, none of them shown. */
  notShown?: number;
  /** For a directory whose entries could not be listed: why. */
  unreadable?: ErrorCode;
}

/** What gg.files.search found. */
interface SearchResult {
  /** Matching lines in path order, then line order. */
  matches: SearchMatch[];
  /** Files read before the search ended (at the limit, or having read them all). */
  filesSearched: number;
  /** True when the list is exactly limit long: more matches may exist, so narrow the query or the path. */
  limitReached: boolean;
  /** When the ignore rules (.gitignore, .ignore, .git/info/exclude, .git) left entries out of the walk before it ended: how many, each counted where the walk met it (an ignored directory once, whatever it holds). */
  ignored?: number;
}

/** One matching line. */
interface SearchMatch {
  /** The file: the call's path joined with the file's path below it (the path itself when it names a file). */
  path: string;
  /** 1-based line number. */
  line: number;
  /** The line without its ending: its first 200 characters (Unicode code points, not UTF-16 units). */
  text: string;
  /** Characters (code points) of the line beyond the first 200, when it was cut. */
  cut?: number;
}

/** A finished command, as programs and `--json` receive it. */
interface ShellResult {
  exitCode: number;
  /** The inline output, the truncation note included when it was cut. */
  output: string;
  truncated: boolean;
  /** Where the full streams are (offload only). */
  files?: {
    stdout: string;
    stderr: string;
  };
  /** The signal that ended sh, if one did. */
  signal?: string;
  /** The sandbox the command ran in; absent when it ran unconfined. */
  sandbox?: "read-only" | "workspace-write";
}

/** What opening a view returns: its summary and the text the model now sees (for a picture, its description). */
interface OpenedView extends ViewSummary {
  text: string;
}

/** What closing or evicting a file's views returns. */
interface Closed {
  /** Views closed. */
  closed: number;
  /** Tokens they cost the window, now reclaimed. */
  tokens: number;
}

/** A view as programs and run reports see it. */
interface ViewSummary {
  id: number;
  path: string;
  /**
   * For a text view: 1-based lines shown (inclusive) and the file's length in lines; an empty file, which reads as
   * "", shows no lines: `{ first: 0, last: 0, total: 0 }`.
   */
  window?: {
    first: number;
    last: number;
    total: number;
  };
  /**
   * The picture, for an image view; `retired` once a newer view of the same file carries it; `estimated` when its
   * header could not be read, so it is charged by file size rather than by its tiles.
   */
  image?: {
    format: string;
    bytes: number;
    width?: number;
    height?: number;
    attached: boolean;
    retired: boolean;
    estimated: boolean;
  };
  /** Tokens this view costs the window now. */
  tokens: number;
  /** Whether its file changed on disk since it was opened: the view shows the text as it was; open the file again to see it now. */
  stale: boolean;
}

/** Tokens per band of the context window. */
interface Breakdown {
  system: number;
  messages: number;
  toolResults: number;
  fileViews: number;
  images: number;
  total: number;
}

/** A name earlier programs of the session left in the realm. */
interface HeldName {
  name: string;
  /** function, class, array, map, set, object, or typeof a primitive. */
  kind: string;
  /** A guess at its size: a lower bound past 5000 values. */
  bytes: number;
}

/** Why a gg call failed. */
type ErrorCode = "invalid-argument" | "not-found" | "no-match" | "ambiguous" | "permission-denied" | "io-error" | "launch-failed" | "timeout" | "over-cap" | "conflict" | "denied" | "tool-error" | "unavailable";

/** Every gg function rejects with an Error carrying the code of what failed. */
interface GgError extends Error {
  code: ErrorCode;
}

/** The program's console: each call is one entry of the run's logs (values joined by spaces, each value that is not a string as JSON). */
interface Console {
  log(...values: unknown[]): void;
  info(...values: unknown[]): void;
  warn(...values: unknown[]): void;
  error(...values: unknown[]): void;
  debug(...values: unknown[]): void;
}
declare var console: Console;

declare const gg: {
  files: {
    /** Read a text file by line window into your program, without showing it to you (gg.views.openFile shows it). */
    readFile(path: string, options?: { offset?: number; limit?: number }): Promise<string | ImageValue>;
    /** Create or overwrite a whole file, creating its parent directories. */
    writeFile(path: string, content: string): Promise<WriteResult>;
    /** Replace one exact, unique occurrence of a string in a file. */
    editFile(path: string, old: string, replacement: string): Promise<EditResult>;
    /** List one directory's entries, ignored ones included. */
    listDir(path?: string): Promise<ListDirResult>;
    /** Render the tree beneath a directory, ignored files left out. */
    tree(path?: string, options?: { depth?: number }): Promise<TreeResult>;
    /** Find the lines matching a Rust regular expression across the workspace's files. */
    search(query: string, options?: { path?: string; limit?: number }): Promise<SearchResult>;
  };
  shell: {
    /** Run a shell command and get its exit code and output. */
    shell(command: string, options?: { timeoutSecs?: number }): Promise<ShellResult>;
  };
  views: {
    /** Show a file to yourself: read it, or a window of its lines, into a view in your context window (a picture is shown as a picture). */
    openFile(path: string, options?: { offset?: number; limit?: number }): Promise<OpenedView>;
    /** Close every view of a path, taking it out of your context window. */
    close(path: string): Promise<Closed>;
    /** List the open views, oldest first, with what each costs the context window. */
    list(): Promise<ViewSummary[]>;
  };
  context: {
    /** Evict a file's views, and their pictures, from the context window; returns the tokens reclaimed. */
    evictFileView(path: string): Promise<Closed>;
    /** Tokens in the context window per band: system, messages, tool results, file views, images. */
    breakdown(): Promise<Breakdown>;
    /** What earlier programs left: top-level names and globalThis properties, kinds, sizes. */
    state(): Promise<HeldName[]>;
  };
};
