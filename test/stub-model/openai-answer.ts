// Turns a chosen reply into the Responses API answer: SSE or JSON, error, broken stream or hang.
import { type DialectContext, type DialectRequest, hangUntilStopped } from "./dialect.ts";
import { openaiLimit } from "./limits.ts";
import type { ResponsesBody } from "./openai-request.ts";
import {
  type BrokenStream,
  planBrokenFrames,
  planResponseFrames,
  renderErrorBody,
  renderResponseJson,
  type WireItem,
  type WireResponse,
} from "./openai-wire.ts";
import { streamFrames } from "./sse-response.ts";
import type { StubBlock, StubReply } from "./types.ts";

/** What this dialect can answer: the shared replies plus the stream faults only Responses has. */
export type ResponsesReply = StubReply | { kind: "failed" } | { kind: "stall" };

/** Text deltas per item when a reply does not ask for pacing: enough to exercise reassembly. */
const DEFAULT_CHUNKS = 3;

/** Sets `record.answered` synchronously, then answers (a promise only for delays and hangs). */
export function answerResponses(
  reply: ResponsesReply,
  body: ResponsesBody,
  request: DialectRequest,
  context: DialectContext,
): Response | Promise<Response> {
  const { record } = request;
  const headers = { "x-request-id": `req_stub_${record.seq}` };
  const shell = { id: `resp_stub_${record.seq}`, model: body.model, inputTokens: estimateInput(body) };
  switch (reply.kind) {
    case "error": {
      record.answered = `error ${reply.status}`;
      const payload = renderErrorBody(reply.status, reply.message ?? `stub error ${reply.status}`);
      return Response.json(payload, { status: reply.status, headers: { ...headers, ...reply.headers } });
    }
    case "limit": {
      record.answered = "limit";
      const limit = openaiLimit(reply);
      return Response.json(limit.body, { status: 429, headers: { ...headers, ...limit.headers } });
    }
    case "hang":
      record.answered = "hang";
      return hangUntilStopped(request, context);
    case "malformed":
    case "cut":
    case "failed":
    case "stall": {
      record.answered = reply.kind;
      const frames = planBrokenFrames(shell, reply.kind satisfies BrokenStream);
      if (reply.kind !== "stall") return streamFrames(frames, { cut: reply.kind === "cut", headers });
      return stallAfter(frames, request, context, headers);
    }
    case "message": {
      const items = toWireItems(reply.blocks, record.seq);
      const callIds = items.flatMap((item) => (item.type === "function_call" ? [item.callId] : []));
      if (reply.then !== undefined && callIds.length > 0) context.script.remember(callIds, reply.then);
      const response: WireResponse = { ...shell, items };
      record.answered = `message ${items.map((item) => item.type).join("+")}`;
      const frames = planResponseFrames(response, reply.chunks ?? DEFAULT_CHUNKS, reply.chunkDelayMs ?? 0);
      const respond = () =>
        body.stream
          ? streamFrames(frames, { headers })
          : Response.json(renderResponseJson(response), { headers });
      return reply.delayMs ? Bun.sleep(reply.delayMs).then(respond) : respond();
    }
  }
}

/**
 * Codex's shell tool is `exec_command {cmd}`, and it applies patches that arrive as an
 * `apply_patch` heredoc inside it (0.171.0 offers no apply_patch tool), so the shared `Bash` and
 * `Write` tool calls are translated; any other tool goes out under its own name.
 */
function toWireItems(blocks: readonly StubBlock[], seq: number): WireItem[] {
  return blocks.map((block, index): WireItem => {
    const id = `${seq}_${index}`;
    if (block.type === "text") return { type: "message", id: `msg_stub_${id}`, text: block.text };
    if (block.type === "thinking") return { type: "reasoning", id: `rs_stub_${id}`, summary: block.thinking };
    const { name, input } = translateTool(block.name, block.input);
    // A namespaced tool (`mcp__umbel_structured.StructuredOutput`) is called by its name in its namespace.
    const dot = name.lastIndexOf(".");
    return {
      type: "function_call",
      id: `fc_stub_${id}`,
      callId: block.id ?? `call_stub_${id}`,
      name: dot < 0 ? name : name.slice(dot + 1),
      ...(dot < 0 ? {} : { namespace: name.slice(0, dot) }),
      arguments: JSON.stringify(input),
    };
  });
}

function translateTool(
  name: string,
  input: Record<string, unknown>,
): { name: string; input: Record<string, unknown> } {
  if (name === "Bash") return { name: "exec_command", input: { cmd: String(input.command ?? "") } };
  if (name === "Write") {
    const lines = String(input.content ?? "")
      .split("\n")
      .map((line) => `+${line}`)
      .join("\n");
    const patch = `*** Begin Patch\n*** Add File: ${String(input.file_path ?? "stub.txt")}\n${lines}\n*** End Patch`;
    return { name: "exec_command", input: { cmd: `apply_patch <<'EOF'\n${patch}\nEOF\n` } };
  }
  return { name, input };
}

/** Headers and a first delta, then nothing until the client gives up or the stub stops. */
function stallAfter(
  frames: ReturnType<typeof planBrokenFrames>,
  request: DialectRequest,
  context: DialectContext,
  headers: Record<string, string>,
): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of frames) controller.enqueue(encoder.encode(frame.data));
      const close = () => {
        try {
          controller.close();
        } catch {
          // already closed by the client going away
        }
      };
      if (context.stopped.aborted || request.signal.aborted) return close();
      context.stopped.addEventListener("abort", close, { once: true });
      request.signal.addEventListener("abort", close, { once: true });
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers },
  });
}

function estimateInput(body: ResponsesBody): number {
  return Math.max(1, Math.ceil(body.input.reduce((sum, item) => sum + item.text.length, 0) / 4));
}
