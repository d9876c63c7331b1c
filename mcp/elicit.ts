// Asks over MCP: a call whose verdict is ask, made as a tool call or from run_program's program, is put to the client as
// a form elicitation (elicitation/create) naming the call, its arguments and why it is asked. A client that did not
// declare the capability cannot be asked: its asks are denied at once, saying so, never left waiting.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { Configuration } from "../bindings/config.ts";
import { questionOf, whyAsked } from "../bindings/approval_question.ts";
import { type ApprovalAnswer, type ApprovalRequest, type Approve, askTimeoutSecs } from "../bindings/gate.ts";
import { escapeUnshowable } from "../host/shown.ts";

/** The form the client shows: a decision, and an optional reason the agent reads when it is a deny. */
const DECISION: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: {
    decision: { type: "string", title: "Decision", enum: ["allow", "deny"], description: "allow runs this one call; deny refuses it, and nothing of it runs" },
    reason: { type: "string", title: "Reason", description: "Optional: why, for the agent to read" },
  },
  required: ["decision"],
};

/**
 * The elicitation's message: the call, where it comes from, its arguments (a shell call's command line as text; head
 * and tail when long), each part of a command line that asked, and why it is asked; escaped as a terminal's question is.
 */
function askMessage(request: ApprovalRequest): string {
  const question = questionOf(request);
  const from = request.from === "program" ? `a program's call #${request.seq + 1}` : "a tool call";
  const parts = question.parts.map((part) => `It asks about: ${part}\n`).join("");
  return `gg asks to run ${request.call} (${from}) in ${escapeUnshowable(request.workspace)}; its ${question.label} (${question.length.toLocaleString("en-US")} characters):\n${question.shown}\n${parts}Why you are asked: ${question.why}.\nAllow this one call, or deny it.`;
}

/** Whether the client takes form elicitations: it declared elicitation, with form mode or with no mode named. */
const canBeAsked = (server: Server): boolean => {
  const declared = server.getClientCapabilities()?.elicitation;
  return declared !== undefined && (declared.form !== undefined || declared.url === undefined);
};

/** A client's answer as an approval answer: accept with allow allows; a deny, a decline or a cancel denies. */
function answerOf(result: ElicitResult): ApprovalAnswer {
  const given = result.content?.reason;
  const reason = typeof given === "string" && given.trim() !== "" ? given.trim() : undefined;
  if (result.action === "accept" && result.content?.decision === "allow") return { verdict: "allow", by: "client", ...(reason ? { reason } : {}) };
  const why =
    result.action === "accept"
      ? result.content?.decision === "deny"
        ? "the client's user denied it"
        : "the client's user accepted without choosing allow"
      : result.action === "decline"
        ? "the client's user declined it"
        : "the client's user dismissed the request without answering";
  return { verdict: "deny", by: "client", reason: reason ? `${why}: ${reason}` : why };
}

/** The `approve` of an MCP session: each ask becomes an elicitation to `server`'s client, when it can be asked. */
export function elicitingApprove(server: Server, config: Configuration): Approve {
  // The gate's own timer says "late" first; the request then ends on the client's side too.
  const timeoutSecs = askTimeoutSecs(config) + 1;
  return async (request) => {
    const why = whyAsked(request.asking);
    if (!canBeAsked(server)) {
      return { verdict: "deny", by: "client", reason: `this MCP client cannot be asked (it did not declare the elicitation capability), and ${why} asks; use a client that supports elicitation, or change the approvals` };
    }
    try {
      return answerOf(await server.elicitInput({ mode: "form", message: askMessage(request), requestedSchema: DECISION }, { timeout: timeoutSecs * 1000 }));
    } catch (error) {
      return { verdict: "deny", by: "client", reason: `asking the client failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  };
}
