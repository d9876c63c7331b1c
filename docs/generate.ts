// Writes docs/calls.md from the call declarations: `npm run docs`.
import { writeFileSync } from "node:fs";
import { renderCallsDoc } from "../bindings/docs.ts";

writeFileSync(new URL("./calls.md", import.meta.url), renderCallsDoc());
