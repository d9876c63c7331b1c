// Every call gg declares, in the order tools are listed: apart from the registry so the configuration parser can
// check an allowlist's names against it. The declarations take the configuration's shape from capabilities.ts, never
// the parser, so nothing here is imported back.
import type { CallDefinition } from "./define.ts";
import { edit } from "./batch_edit.ts";
import { glob, list } from "./batch_list.ts";
import { read, viewImage } from "./batch_read.ts";
import { batchSearch } from "./batch_search.ts";
import { editFile } from "./edit_file.ts";
import { listDir } from "./list_dir.ts";
import { readFile } from "./read_file.ts";
import { search } from "./search.ts";
import { shell } from "./shell.ts";
import { tree } from "./tree.ts";
import { writeFile } from "./write_file.ts";

/** Every call gg declares, in the order tools are listed. */
export const CALLS: readonly CallDefinition[] = [readFile, read, viewImage, writeFile, editFile, edit, listDir, tree, list, glob, search, batchSearch, shell] as unknown as CallDefinition[];
