// Writes the generated reference pages from the declarations: `npm run docs`.
import { writeFileSync } from "node:fs";
import { renderCallsDoc } from "../bindings/docs.ts";
import { renderApiDoc, renderDts } from "../runtime/docs.ts";

writeFileSync(new URL("./calls.md", import.meta.url), renderCallsDoc());
writeFileSync(new URL("./api.md", import.meta.url), renderApiDoc());
writeFileSync(new URL("./gg.d.ts", import.meta.url), renderDts());
