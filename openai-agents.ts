// gg-runtime/openai-agents: gg's tools as OpenAI Agents SDK function tools (needs the package @openai/agents).
export { type GgAgentTools, type GgToolOutput, ggTools, type GgToolsOptions, type ToolAnswer } from "./frameworks/openai_agents.ts";
