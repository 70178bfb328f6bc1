import type { AgentContext, PromptRequest, PromptResponse } from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import { planPrompt } from "../../core/acp/prompt.ts";
import { AcpPromptMeta } from "../../core/acp/session.ts";
import { UMBEL_ERROR_CODE } from "../../core/acp/stop.ts";
import { orphanGuardField } from "../../core/guard/fields.ts";
import type { Deps } from "../../core/ports.ts";
import { acpFolder } from "../../operations/acp/session.ts";
import { type AcpClientPort, runAcpTurn } from "../../operations/acp/turn.ts";
import { defined, parseMeta, type Session, takesImages } from "./request.ts";

/**
 * session/prompt on a session whose worker is on this machine: the content blocks as the TUI's text
 * (attachments written first), the prompt's own guardrails and limits over the face's, then the
 * turn, its updates and permission requests going to the client as they come.
 */
export async function runPrompt(
  deps: Deps,
  s: Session,
  { params, signal, client }: { params: PromptRequest; signal: AbortSignal; client: AgentContext },
  turnFlags: AcpPromptMeta,
): Promise<PromptResponse> {
  if (s.prompt) throw RequestError.invalidRequest({ sessionId: params.sessionId }, "a prompt is running");
  const folder = acpFolder(deps, s.worker.meta.name);
  s.prompts += 1;
  const plan = planPrompt(params.prompt, {
    attachDir: folder.attachments,
    images: takesImages(s.worker.provider),
    stamp: String(s.prompts),
  });
  if (!plan.ok) throw RequestError.invalidParams({ sessionId: params.sessionId }, plan.reason);
  await deps.files.ownDirectory(folder.attachments);
  for (const file of plan.files)
    await deps.files.writeAtomic(file.path, file.text ?? Buffer.from(file.base64 ?? "", "base64"));
  const turn = { ...defined(turnFlags), ...parseMeta(params._meta, AcpPromptMeta) };
  const orphan = orphanGuardField(turn);
  if (orphan) throw RequestError.invalidParams({ field: orphan.field }, orphan.message);
  const cancel = new AbortController();
  // The request's own cancellation ($/cancel_request) is a cancel of the turn too.
  signal.addEventListener("abort", () => cancel.abort(), { once: true });
  s.prompt = cancel;
  const port: AcpClientPort = {
    update: (update) => client.notify("session/update", { sessionId: params.sessionId, update }),
    askPermission: async (request) =>
      (
        await client.request("session/request_permission", {
          sessionId: params.sessionId,
          toolCall: request.toolCall,
          options: request.options,
        })
      ).outcome,
  };
  try {
    const { jsonSchema: schema, accept: checks, maxAttempts: attempts, acceptTimeout: checkFor } = turn;
    const guard = {
      jsonSchema: schema,
      accept: checks,
      maxAttempts: attempts,
      acceptTimeout: checkFor,
    };
    const { end, structured } = await runAcpTurn(
      deps,
      s.worker,
      {
        prompt: plan.text,
        maxTurns: turn.maxTurns,
        timeout: turn.timeout,
        guard,
        cancel: cancel.signal,
      },
      port,
    );
    if (end.kind === "error") throw new RequestError(UMBEL_ERROR_CODE, end.message, end.data);
    return {
      stopReason: end.stopReason,
      ...(structured === undefined ? {} : { _meta: { umbel: { structured } } }),
    };
  } finally {
    s.prompt = null;
  }
}
