// Builders for scripted replies: `stub.script(bash("echo hi", text("done")))`.
import type { StubBlock, StubPacing, StubReply } from "./types.ts";

export function text(body: string, pacing: StubPacing = {}): StubReply {
  return { kind: "message", blocks: [{ type: "text", text: body }], ...pacing };
}

/** Text streamed as `chunks` deltas, `chunkDelayMs` apart. */
export function slowText(body: string, chunks: number, chunkDelayMs: number): StubReply {
  return text(body, { chunks, chunkDelayMs });
}

export function thinking(thought: string, body: string): StubReply {
  return {
    kind: "message",
    blocks: [
      { type: "thinking", thinking: thought },
      { type: "text", text: body },
    ],
  };
}

/** One assistant message calling `name`; `then` answers the request that carries its result. */
export function toolUse(name: string, input: Record<string, unknown>, then?: StubReply): StubReply {
  return message([{ type: "tool_use", name, input }], then);
}

/** A call of the first tool the request offers whose name contains `part` (MCP tools are prefixed). */
export function matchingToolUse(part: string, input: Record<string, unknown>, then?: StubReply): StubReply {
  return message([{ type: "tool_use", name: part, input, match: true }], then);
}

export function bash(command: string, then?: StubReply): StubReply {
  return toolUse("Bash", { command, description: "stub bash" }, then);
}

export function write(filePath: string, content: string, then?: StubReply): StubReply {
  return toolUse("Write", { file_path: filePath, content }, then);
}

/** Starts a subagent (Claude Code's `Agent` tool); the stub answers the subagent itself. */
export function agent(description: string, prompt: string = description, then?: StubReply): StubReply {
  return toolUse("Agent", { description, prompt, subagent_type: "general-purpose" }, then);
}

function message(blocks: StubBlock[], then?: StubReply): StubReply {
  return then === undefined ? { kind: "message", blocks } : { kind: "message", blocks, then };
}

/** An HTTP error status, answered to the next `times` main requests (default 1). */
export function httpError(status: number, times = 1, message?: string): StubReply {
  return message === undefined ? { kind: "error", status, times } : { kind: "error", status, times, message };
}

/** A stream whose text delta is not JSON (when not streaming: a JSON body cut short). */
export function malformed(times = 1): StubReply {
  return { kind: "malformed", times };
}

/** A stream whose connection is reset after a partial text delta. */
export function cutStream(times = 1): StubReply {
  return { kind: "cut", times };
}

/** A request that is never answered until the stub stops or the client gives up. */
export function hang(): StubReply {
  return { kind: "hang" };
}
