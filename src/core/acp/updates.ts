import type {
  ToolKind as AcpToolKind,
  PlanEntry,
  SessionUpdate,
  ToolCallLocation,
} from "@agentclientprotocol/sdk";
import { isRecord } from "../common/json.ts";
import { resultText, toolKind, toolRole } from "../dialects/tool-kind.ts";
import type { StreamMessage } from "../providers/transcript-types.ts";

/**
 * A turn's messages (claude -p's stream-json shapes, which every provider's tracker renders) as ACP
 * `session/update`s: an assistant text block is an `agent_message_chunk`, a thinking block an
 * `agent_thought_chunk`, a tool_use a `tool_call` and its tool_result the `tool_call_update` that
 * ends it. A todo list the CLI keeps (claude TodoWrite, codex update_plan, gemini write_todos) is a
 * `plan`, its call and result not shown as a tool. Stateful (it remembers the calls it saw, so a
 * result names its kind) and pure.
 */
export type UpdateMapper = {
  push(message: StreamMessage): SessionUpdate[];
  /** The last tool call still without its result (a permission prompt is about it), or null. */
  pendingCall(): PendingCall | null;
};

export type PendingCall = {
  readonly toolCallId: string;
  readonly title: string;
  readonly kind: AcpToolKind;
  readonly rawInput: unknown;
};

export function createUpdateMapper(): UpdateMapper {
  const calls = new Map<string, PendingCall>();
  const plans = new Set<string>();
  const done = new Set<string>();
  return {
    push(message) {
      const content = (message.message as { content?: unknown } | undefined)?.content;
      if (!Array.isArray(content)) return [];
      const updates: SessionUpdate[] = [];
      for (const block of content) {
        if (!isRecord(block)) continue;
        if (message.type === "assistant") updates.push(...assistantBlock(block, calls, plans));
        if (message.type === "user" && block.type === "tool_result") {
          const id = typeof block.tool_use_id === "string" ? block.tool_use_id : null;
          if (id === null || plans.has(id) || done.has(id)) continue;
          done.add(id);
          const text = resultText(block.content);
          updates.push({
            sessionUpdate: "tool_call_update",
            toolCallId: id,
            status: block.is_error === true ? "failed" : "completed",
            ...(text === "" ? {} : { content: [{ type: "content", content: { type: "text", text } }] }),
            rawOutput: block.content ?? null,
          });
        }
      }
      return updates;
    },
    pendingCall() {
      const open = [...calls.values()].filter((call) => !done.has(call.toolCallId));
      return open.at(-1) ?? null;
    },
  };
}

function assistantBlock(
  block: Record<string, unknown>,
  calls: Map<string, PendingCall>,
  plans: Set<string>,
): SessionUpdate[] {
  if (block.type === "text" && typeof block.text === "string" && block.text !== "")
    return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: block.text } }];
  if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking !== "")
    return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: block.thinking } }];
  if (block.type !== "tool_use" || typeof block.id !== "string" || typeof block.name !== "string") return [];
  const entries = planEntries(block.name, block.input);
  if (entries !== null) {
    plans.add(block.id);
    return [{ sessionUpdate: "plan", entries }];
  }
  const call = describeCall(block.id, block.name, block.input);
  calls.set(block.id, call);
  const locations = locationsOf(block.name, block.input);
  return [
    {
      sessionUpdate: "tool_call",
      toolCallId: call.toolCallId,
      title: call.title,
      kind: call.kind,
      status: "in_progress",
      rawInput: block.input ?? null,
      ...(locations.length > 0 ? { locations } : {}),
    },
  ];
}

/** A tool call's title and ACP kind, from what the call is (core/dialects/tool-kind.ts). */
export function describeCall(toolCallId: string, name: string, input: unknown): PendingCall {
  const what = toolKind(name, input);
  const args = isRecord(input) ? input : {};
  const path = pathOf(args);
  const base = { toolCallId, rawInput: input ?? null };
  if (what.kind === "command") return { ...base, title: what.command || name, kind: "execute" };
  if (what.kind === "file") {
    const deleting = what.changes.length > 0 && what.changes.every((c) => c.kind === "delete");
    const where = what.changes.map((c) => c.path).join(", ");
    const verb = what.changes[0]?.kind === "add" ? "Create" : deleting ? "Delete" : "Change";
    return {
      ...base,
      title: where === "" ? name : `${verb} ${where}`,
      kind: deleting ? "delete" : EDIT_KIND,
    };
  }
  if (what.kind === "web") return { ...base, title: `Search the web: ${what.query}`, kind: "fetch" };
  if (what.kind === "mcp") return { ...base, title: `${what.server}: ${what.tool}`, kind: "other" };
  const role = toolRole(name).role;
  if (role === "read") return { ...base, title: path ? `Read ${path}` : name, kind: "read" };
  if (role === "search") {
    const pattern = str(args.pattern) ?? str(args.query) ?? path;
    return { ...base, title: pattern ? `${name} ${pattern}` : name, kind: "search" };
  }
  if (role === "fetch") return { ...base, title: str(args.url) ?? name, kind: "fetch" };
  if (role === "delegate")
    return { ...base, title: str(args.description) ?? str(args.prompt) ?? name, kind: "think" };
  return { ...base, title: path ? `${name} ${path}` : name, kind: "other" };
}

/** ACP's kind for a file change (also opencode's tool name, hence named once here). */
const EDIT_KIND: AcpToolKind = "edit";

function locationsOf(name: string, input: unknown): ToolCallLocation[] {
  const what = toolKind(name, input);
  if (what.kind === "file") return what.changes.map((c) => ({ path: c.path }));
  const path = pathOf(isRecord(input) ? input : {});
  if (path === null || !path.startsWith("/")) return [];
  const line = isRecord(input) && typeof input.offset === "number" ? { line: input.offset } : {};
  return [{ path, ...line }];
}

/** A todo list tool's entries (the provider's `tools.todo`: claude TodoWrite, codex update_plan, …), else null. */
export function planEntries(name: string, input: unknown): PlanEntry[] | null {
  const role = toolRole(name);
  if (role.role !== "todo" || !isRecord(input)) return null;
  const list = input[role.list];
  if (!Array.isArray(list)) return null;
  return list.flatMap((item): PlanEntry[] => {
    if (!isRecord(item)) return [];
    const content = str(item.content) ?? str(item.step) ?? str(item.description);
    if (content === null) return [];
    const priority = item.priority === "high" || item.priority === "low" ? item.priority : "medium";
    return [{ content, priority, status: planStatus(item.status) }];
  });
}

function planStatus(status: unknown): PlanEntry["status"] {
  if (status === "completed" || status === "done") return "completed";
  if (status === "in_progress" || status === "in-progress") return "in_progress";
  return "pending";
}

function pathOf(args: Readonly<Record<string, unknown>>): string | null {
  return (
    str(args.file_path) ??
    str(args.filePath) ??
    str(args.notebook_path) ??
    str(args.absolute_path) ??
    str(args.path)
  );
}

function str(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
