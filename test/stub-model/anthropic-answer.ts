// Turns a chosen StubReply into the Messages API response: SSE or JSON, error, fault or hang.
import type { MessagesBody } from "./anthropic-request.ts";
import {
  applyStopSequences,
  estimateTokens,
  planBrokenFrames,
  planMessageFrames,
  renderErrorBody,
  renderMessageJson,
  type WireBlock,
  type WireMessage,
} from "./anthropic-wire.ts";
import { type DialectContext, type DialectRequest, hangUntilStopped } from "./dialect.ts";
import { anthropicLimitHeaders } from "./limits.ts";
import { streamFrames } from "./sse-response.ts";
import type { StubBlock, StubReply } from "./types.ts";

/** Text deltas per block when a reply does not ask for pacing: enough to exercise reassembly. */
const DEFAULT_CHUNKS = 3;

/** Sets `record.answered` synchronously, then answers (a promise only for delays and hangs). */
export function answerReply(
  reply: StubReply,
  body: MessagesBody,
  request: DialectRequest,
  context: DialectContext,
): Response | Promise<Response> {
  const { record } = request;
  const id = requestId(record.seq);
  const headers = { "request-id": id };
  const shell = {
    id: `msg_stub_${record.seq}`,
    model: body.model,
    inputTokens: estimateTokens(body.messages),
  };
  switch (reply.kind) {
    case "error": {
      record.answered = `error ${reply.status}`;
      const payload = renderErrorBody(reply.status, reply.message ?? `stub error ${reply.status}`, id);
      return Response.json(payload, { status: reply.status, headers: { ...headers, ...reply.headers } });
    }
    case "limit": {
      record.answered = "limit";
      const payload = renderErrorBody(429, "rate limited", id);
      return Response.json(payload, {
        status: 429,
        headers: { ...headers, ...anthropicLimitHeaders(reply) },
      });
    }
    case "hang":
      record.answered = "hang";
      return hangUntilStopped(request, context);
    case "malformed":
    case "cut": {
      record.answered = reply.kind;
      const cut = reply.kind === "cut";
      if (body.stream) {
        const frames = planBrokenFrames({ ...shell, stopReason: "end_turn", stopSequence: null }, reply.kind);
        return streamFrames(frames, { cut, headers });
      }
      const partial = `{"id":"${shell.id}","type":"message","content":[{"type":"text","text":"STUB`;
      return streamFrames([{ data: partial, delayMs: 0 }], {
        cut,
        headers: { ...headers, "content-type": "application/json" },
      });
    }
    case "message": {
      const blocks = toWireBlocks(reply.blocks, record.seq);
      const toolIds = blocks.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
      if (reply.then !== undefined && toolIds.length > 0) context.script.remember(toolIds, reply.then);
      const stopped = applyStopSequences(blocks, body.stopSequences);
      const message: WireMessage = {
        ...shell,
        blocks: stopped.blocks,
        stopReason: stopped.stopSequence ? "stop_sequence" : toolIds.length > 0 ? "tool_use" : "end_turn",
        stopSequence: stopped.stopSequence,
      };
      record.answered = `message ${blocks.map((block) => block.type).join("+")}`;
      const frames = planMessageFrames(message, reply.chunks ?? DEFAULT_CHUNKS, reply.chunkDelayMs ?? 0);
      const respond = () =>
        body.stream
          ? streamFrames(frames, { headers })
          : Response.json(renderMessageJson(message), { headers });
      return reply.delayMs ? Bun.sleep(reply.delayMs).then(respond) : respond();
    }
  }
}

export function requestId(seq: number): string {
  return `req_stub_${seq}`;
}

function toWireBlocks(blocks: readonly StubBlock[], seq: number): WireBlock[] {
  return blocks.map((block, index) => {
    if (block.type === "tool_use") return { ...block, id: block.id ?? `toolu_stub_${seq}_${index}` };
    if (block.type === "thinking") return { ...block, signature: `stub-signature-${seq}-${index}` };
    return block;
  });
}
