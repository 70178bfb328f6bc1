import { describe, expect, test } from "bun:test";
import { createUpdateMapper, describeCall, planEntries } from "../../../src/core/acp/updates.ts";
import type { StreamMessage } from "../../../src/core/providers/transcript-types.ts";

const assistant = (block: Record<string, unknown>): StreamMessage => ({
  type: "assistant",
  message: { id: "msg_1", content: [block] },
  session_id: "s1",
});
const result = (id: string, content: unknown, isError = false): StreamMessage => ({
  type: "user",
  message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content, is_error: isError }] },
});

describe("a turn's messages as ACP session updates", () => {
  test("text is an agent message chunk, thinking a thought chunk", () => {
    const m = createUpdateMapper();
    expect(m.push(assistant({ type: "thinking", thinking: "hmm", signature: "" }))).toEqual([
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } },
    ]);
    expect(m.push(assistant({ type: "text", text: "Hello" }))).toEqual([
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello" } },
    ]);
    expect(m.push(assistant({ type: "text", text: "" }))).toEqual([]);
  });

  test("a tool use is a tool call in progress, its result the update that completes it", () => {
    const m = createUpdateMapper();
    const input = { command: "echo hi", description: "say hi" };
    expect(m.push(assistant({ type: "tool_use", id: "toolu_1", name: "Bash", input }))).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "toolu_1",
        title: "echo hi",
        kind: "execute",
        status: "in_progress",
        rawInput: input,
      },
    ]);
    expect(m.pendingCall()?.toolCallId).toBe("toolu_1");
    expect(m.push(result("toolu_1", "hi"))).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "toolu_1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "hi" } }],
        rawOutput: "hi",
      },
    ]);
    expect(m.pendingCall()).toBeNull();
    // The same result seen again (a re-read) is not a second update.
    expect(m.push(result("toolu_1", "hi"))).toEqual([]);
  });

  test("a failed tool result fails its call", () => {
    const m = createUpdateMapper();
    m.push(assistant({ type: "tool_use", id: "t2", name: "Bash", input: { command: "false" } }));
    expect(m.push(result("t2", [{ type: "text", text: "Exit code 1" }], true))[0]).toMatchObject({
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "Exit code 1" } }],
    });
  });

  test("a file write names its file as the call's location", () => {
    const m = createUpdateMapper();
    const [call] = m.push(
      assistant({
        type: "tool_use",
        id: "t3",
        name: "Write",
        input: { file_path: "/w/a.txt", content: "x" },
      }),
    );
    expect(call).toMatchObject({ kind: "edit", title: "Create /w/a.txt", locations: [{ path: "/w/a.txt" }] });
  });

  test("a todo list is a plan, and neither its call nor its result is shown as a tool", () => {
    const m = createUpdateMapper();
    const todos = [
      { content: "Read the code", status: "completed", activeForm: "Reading" },
      { content: "Fix the bug", status: "in_progress", activeForm: "Fixing" },
      { content: "Test it", status: "pending", activeForm: "Testing" },
    ];
    expect(m.push(assistant({ type: "tool_use", id: "t4", name: "TodoWrite", input: { todos } }))).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Read the code", priority: "medium", status: "completed" },
          { content: "Fix the bug", priority: "medium", status: "in_progress" },
          { content: "Test it", priority: "medium", status: "pending" },
        ],
      },
    ]);
    expect(m.push(result("t4", "Todos have been modified"))).toEqual([]);
    expect(m.pendingCall()).toBeNull();
  });

  test("at the turn's end, a call still without its result ends failed (a denied codex call records none)", () => {
    const m = createUpdateMapper();
    m.push(assistant({ type: "tool_use", id: "t5", name: "Bash", input: { command: "rm -rf x" } }));
    m.push(assistant({ type: "tool_use", id: "t6", name: "Bash", input: { command: "ls" } }));
    m.push(result("t6", "a"));
    expect(m.closeOpen()).toEqual([
      { sessionUpdate: "tool_call_update", toolCallId: "t5", status: "failed" },
    ]);
    expect(m.closeOpen()).toEqual([]);
    expect(m.push(result("t5", "late"))).toEqual([]);
  });

  test("messages without content blocks (a limit's rate_limit_event) map to nothing", () => {
    const m = createUpdateMapper();
    expect(m.push({ type: "rate_limit_event", rate_limit_info: {} })).toEqual([]);
    expect(m.push({ type: "system", subtype: "permission_denied" })).toEqual([]);
  });
});

describe("a tool call's title and kind", () => {
  test.each([
    ["Bash", { command: "ls -la" }, "execute", "ls -la"],
    ["exec_command", { cmd: "git status" }, "execute", "git status"],
    ["Edit", { file_path: "/a.ts", old_string: "a", new_string: "b" }, "edit", "Change /a.ts"],
    ["Read", { file_path: "/a.ts" }, "read", "Read /a.ts"],
    ["read_file", { absolute_path: "/b.ts" }, "read", "Read /b.ts"],
    ["Grep", { pattern: "TODO" }, "search", "Grep TODO"],
    ["glob", { pattern: "**/*.ts" }, "search", "glob **/*.ts"],
    ["WebFetch", { url: "https://example.com" }, "fetch", "https://example.com"],
    ["WebSearch", { query: "bun fs.watch" }, "fetch", "Search the web: bun fs.watch"],
    ["Task", { description: "Explore the repo" }, "think", "Explore the repo"],
    ["mcp__docs__lookup", { q: "x" }, "other", "docs: lookup"],
    ["Mystery", {}, "other", "Mystery"],
  ] as const)("%s", (name, input, kind, title) => {
    expect(describeCall("id", name, input)).toMatchObject({ kind, title });
  });
});

describe("the todo list tools of every CLI", () => {
  test.each([
    ["TodoWrite", { todos: [{ content: "a", status: "pending" }] }],
    ["update_plan", { plan: [{ step: "a", status: "pending" }] }],
    ["write_todos", { todos: [{ description: "a", status: "pending" }] }],
    ["todowrite", { todos: [{ content: "a", status: "pending", priority: "medium" }] }],
  ])("%s", (name, input) => {
    expect(planEntries(name, input)).toEqual([{ content: "a", priority: "medium", status: "pending" }]);
  });

  test("another tool, or a list of the wrong shape, is no plan", () => {
    expect(planEntries("Bash", { todos: [] })).toBeNull();
    expect(planEntries("TodoWrite", { todos: "x" })).toBeNull();
    expect(planEntries("TodoWrite", { todos: [{ nothing: 1 }, 3] })).toEqual([]);
  });
});
