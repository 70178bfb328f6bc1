// Decides the reply to a main request: tool-call continuation, then the FIFO queue, then a
// directive in the prompt, then the default (an echo that proves the prompt arrived intact).
import { renderNoticeEcho, renderPromptEcho, renderToolResultEcho } from "./digest.ts";
import { parseDirective } from "./directives.ts";
import { text } from "./replies.ts";
import type { MainTurn, StubReply } from "./types.ts";

type ReplySource = "continuation" | "queue" | "directive" | "default";

export interface Script {
  enqueue(replies: StubReply[]): void;
  setDefault(reply: StubReply | undefined): void;
  /** Replies still queued; an error with `times: 3` that answered once counts once. */
  queued(): number;
  /** Makes `then` the answer to whichever request first returns a result for one of `toolUseIds`. */
  remember(toolUseIds: string[], then: StubReply): void;
  /** `toolNames`: the tools the request offers (a `stub:tool` call names one by a part of its name). */
  nextForMain(turn: MainTurn, toolNames?: readonly string[]): { reply: StubReply; source: ReplySource };
  reset(): void;
}

export function createScript(initialDefault?: StubReply): Script {
  const queue: StubReply[] = [];
  const continuations = new Map<string, { ids: string[]; then: StubReply }>();
  // Claude Code retries a failed request with the same body, so the prompt plus the message count
  // identifies the turn a `stub:error <status> <times>` directive has been answering.
  const directiveHits = new Map<string, number>();
  let fallback = initialDefault;

  function takeContinuation(turn: MainTurn): StubReply | undefined {
    for (const result of turn.toolResults) {
      const entry = continuations.get(result.toolUseId);
      if (entry === undefined) continue;
      for (const id of entry.ids) continuations.delete(id);
      return entry.then;
    }
    return undefined;
  }

  function takeQueued(): StubReply | undefined {
    const head = queue[0];
    if (head === undefined) return undefined;
    if (head.kind !== "message" && head.kind !== "hang" && (head.times ?? 1) > 1) {
      queue[0] = { ...head, times: (head.times ?? 1) - 1 };
      return { ...head, times: 1 };
    }
    return queue.shift();
  }

  function takeDirective(turn: MainTurn): StubReply | undefined {
    if (turn.trigger !== "prompt") return undefined;
    const directive = parseDirective(turn.prompt);
    if (directive === null) return undefined;
    const counted = directive.reply.kind === "error" || directive.reply.kind === "limit";
    if (!counted || directive.times === undefined) return directive.reply;
    // claude merges its auto-continuation into the limited prompt's message, so a limit counts per
    // first line of the prompt (the directive's line), an error per retry of one request body.
    const key =
      directive.reply.kind === "limit"
        ? `limit\u0000${turn.prompt.split("\n")[0]}`
        : `${turn.messageCount}\u0000${turn.prompt}`;
    const hits = directiveHits.get(key) ?? 0;
    if (hits >= directive.times) return undefined;
    directiveHits.set(key, hits + 1);
    return directive.reply;
  }

  return {
    enqueue(replies) {
      queue.push(...replies);
    },
    setDefault(reply) {
      fallback = reply;
    },
    queued() {
      return queue.length;
    },
    remember(toolUseIds, then) {
      const entry = { ids: toolUseIds, then };
      for (const id of toolUseIds) continuations.set(id, entry);
    },
    nextForMain(turn, toolNames = []) {
      const continuation = takeContinuation(turn);
      if (continuation) return { reply: resolveTools(continuation, toolNames), source: "continuation" };
      const queued = takeQueued();
      if (queued) return { reply: resolveTools(queued, toolNames), source: "queue" };
      const directed = takeDirective(turn);
      if (directed) return { reply: resolveTools(directed, toolNames), source: "directive" };
      return { reply: fallback ?? echoFor(turn), source: "default" };
    },
    reset() {
      queue.length = 0;
      continuations.clear();
      directiveHits.clear();
      fallback = initialDefault;
    },
  };
}

/** Tool calls named by a part of the name get the offered tool's full name (the first that contains it). */
function resolveTools(reply: StubReply, toolNames: readonly string[]): StubReply {
  if (reply.kind !== "message" || !reply.blocks.some((b) => b.type === "tool_use" && b.match)) return reply;
  const blocks = reply.blocks.map((block) => {
    if (block.type !== "tool_use" || !block.match) return block;
    const { match: _match, ...call } = block;
    const name = toolNames.find((n) => n === block.name) ?? toolNames.find((n) => n.includes(block.name));
    return { ...call, name: name ?? block.name };
  });
  return { ...reply, blocks };
}

function echoFor(turn: MainTurn): StubReply {
  const result = turn.toolResults[0];
  if (turn.trigger === "tool_result" && result)
    return text(renderToolResultEcho(result.text, result.isError));
  if (turn.trigger === "notice") return text(renderNoticeEcho(turn.injected));
  return text(renderPromptEcho(turn.prompt));
}
