// Writes the generated pages from what they are derived of: the reference pages from the declarations, and the
// package's THIRD_PARTY_NOTICES.md from the current build's (which the build derives from what its bundles hold).
// Run: `npm run docs` (which builds first when the sources changed).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderCallsDoc } from "../bindings/docs.ts";
import { renderApiDoc, renderDts } from "../runtime/docs.ts";
import { currentBuilds, NOTICES } from "./build.ts";

const ROOT = join(import.meta.dirname, "..");
const DOCS = join(ROOT, "docs");

writeFileSync(join(DOCS, "calls.md"), renderCallsDoc());
writeFileSync(join(DOCS, "api.md"), renderApiDoc());
writeFileSync(join(DOCS, "gg.d.ts"), renderDts());
const [build] = currentBuilds(join(ROOT, "dist"));
writeFileSync(join(ROOT, NOTICES), readFileSync(join(ROOT, "dist", build as string, NOTICES)));
