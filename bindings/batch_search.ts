// search (batch, seed 003): STUB, being written.
import { Type } from "typebox";
import { GgError } from "../host/errors.ts";
import { batchResult, renderBatch } from "./batch.ts";
import { defineCall } from "./define.ts";

export const BatchSearchResult = batchResult("BatchSearchResult", "What gg.files.search (batch) found.", Type.Unknown(), Type.Unknown(), "Files skipped.");

export const batchSearch = defineCall({
  name: "search",
  capability: "search",
  batch: true,
  brief: "Search file contents for a literal or a Rust regex, with context lines and a cursor.",
  code: { module: "files", name: "search", positional: ["pattern"] },
  result: BatchSearchResult,
  parameters: () => Type.Object({ pattern: Type.String() }, { additionalProperties: false }),
  description: () => "STUB",
  run(): never {
    throw new GgError("io-error", "not yet");
  },
  render: renderBatch,
});
