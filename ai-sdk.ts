// gg-runtime/ai-sdk: gg's tools as a Vercel AI SDK ToolSet (needs the package ai).
export { type GgToolSet, ggTools, type GgToolsOptions, type ToolAnswer } from "./frameworks/ai_sdk.ts";
