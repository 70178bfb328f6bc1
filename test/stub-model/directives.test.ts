import { describe, expect, test } from "bun:test";
import { splitText } from "./anthropic-wire.ts";
import { digestOf, renderNoticeEcho, renderPromptEcho } from "./digest.ts";
import { parseDirective } from "./directives.ts";
import { createScript } from "./script.ts";
import type { MainTurn } from "./types.ts";

describe("parseDirective", () => {
  test.each([
    ["plain prompt", "hello", null],
    [
      "error with times",
      "please stub:error 500 2",
      { name: "error", reply: { kind: "error", status: 500 }, times: 2 },
    ],
    ["error forever", "stub:error 401", { name: "error", reply: { kind: "error", status: 401 } }],
    [
      "bash to end of line",
      "x stub:bash echo hi && ls\nnext line",
      {
        name: "bash",
        reply: {
          kind: "message",
          blocks: [
            { type: "tool_use", name: "Bash", input: { command: "echo hi && ls", description: "stub bash" } },
          ],
        },
      },
    ],
    [
      "bash stops at the next directive",
      "stub:bash rm -rf x stub:deny",
      {
        name: "bash",
        reply: {
          kind: "message",
          blocks: [
            { type: "tool_use", name: "Bash", input: { command: "rm -rf x", description: "stub bash" } },
          ],
        },
      },
    ],
    [
      "write",
      "stub:write notes.txt hello there",
      {
        name: "write",
        reply: {
          kind: "message",
          blocks: [
            { type: "tool_use", name: "Write", input: { file_path: "notes.txt", content: "hello there" } },
          ],
        },
      },
    ],
    [
      "task",
      "stub:task look around",
      {
        name: "task",
        reply: {
          kind: "message",
          blocks: [
            {
              type: "tool_use",
              name: "Agent",
              input: { description: "look around", prompt: "look around", subagent_type: "general-purpose" },
            },
          ],
        },
      },
    ],
    [
      "text",
      "stub:text fixed answer",
      { name: "text", reply: { kind: "message", blocks: [{ type: "text", text: "fixed answer" }] } },
    ],
    ["hang", "stub:hang", { name: "hang", reply: { kind: "hang" } }],
    ["malformed", "stub:malformed", { name: "malformed", reply: { kind: "malformed", times: 1 } }],
    ["cut", "stub:cut", { name: "cut", reply: { kind: "cut", times: 1 } }],
    ["needs a word boundary", "xstub:hang", null],
    ["unknown name", "stub:nope", null],
    ["deny is the classifier's", "stub:deny", null],
  ])("%s", (_name, prompt, expected) => {
    const found = parseDirective(prompt);
    if (expected === null) expect(found).toBeNull();
    else expect(found).toMatchObject(expected);
  });

  test("slow streams the echo in the asked number of chunks and pace", () => {
    const found = parseDirective("stub:slow 40 25");
    expect(found?.reply).toMatchObject({ kind: "message", chunks: 40, chunkDelayMs: 25 });
  });

  test("tool calls a tool by part of its name; several are made one after another", () => {
    const found = parseDirective('stub:tool StructuredOutput {"n":"x"} stub:tool StructuredOutput {"n":1}');
    const call = (n: unknown) => [{ type: "tool_use", name: "StructuredOutput", input: { n }, match: true }];
    expect(found?.reply).toMatchObject({ kind: "message", blocks: call("x") });
    const reply = found?.reply as { then?: unknown } | undefined;
    expect(reply?.then).toEqual({ kind: "message", blocks: call(1) });
    expect(parseDirective("stub:tool Thing not json")?.reply).toMatchObject({
      blocks: [{ name: "Thing", input: { value: "not json" } }],
    });
    expect(parseDirective("stub:tool Thing")?.reply).toMatchObject({ blocks: [{ input: {} }] });
  });

  test("thinking answers a thinking block and the echo", () => {
    const prompt = "think stub:thinking";
    expect(parseDirective(prompt)?.reply).toMatchObject({
      blocks: [{ type: "thinking" }, { type: "text", text: renderPromptEcho(prompt) }],
    });
  });
});

describe("digest", () => {
  test("hashes the exact UTF-8 text and counts code points", () => {
    const prompt = "é 🎉\ttab\nline";
    const expected = new Bun.CryptoHasher("sha256").update(prompt).digest("hex").slice(0, 12);
    expect(digestOf(prompt)).toEqual({ len: 12, sha: expected, head: "é 🎉\\ttab\\nline" });
  });

  test("renders notices", () => {
    expect(renderNoticeEcho("<task-notification><status>completed</status></task-notification>")).toBe(
      "STUB-NOTICE task-notification status=completed",
    );
    expect(renderNoticeEcho('<agent-message from="x">')).toBe("STUB-NOTICE agent-message");
  });

  test.each([
    ["abcdef", 3, ["ab", "cd", "ef"]],
    ["abcdefg", 3, ["abc", "de", "fg"]],
    ["ab", 5, ["a", "b"]],
    ["", 3, [""]],
  ])("splitText(%p, %p)", (body, parts, expected) => {
    expect(splitText(body, parts)).toEqual(expected);
  });
});

describe("script", () => {
  const prompt = (text: string, messageCount = 2): MainTurn => ({
    trigger: "prompt",
    prompt: text,
    injected: "",
    toolResults: [],
    messageCount,
  });

  test("queue first, then directive, then the echo", () => {
    const script = createScript();
    script.enqueue([{ kind: "hang" }]);
    expect(script.nextForMain(prompt("stub:cut")).source).toBe("queue");
    expect(script.nextForMain(prompt("stub:cut")).source).toBe("directive");
    expect(script.nextForMain(prompt("plain"))).toMatchObject({ source: "default" });
  });

  test("a queued error with times answers that many requests", () => {
    const script = createScript();
    script.enqueue([{ kind: "error", status: 529, times: 2 }]);
    expect(script.nextForMain(prompt("a")).reply).toMatchObject({ kind: "error", status: 529 });
    expect(script.queued()).toBe(1);
    expect(script.nextForMain(prompt("a")).reply).toMatchObject({ kind: "error", status: 529 });
    expect(script.nextForMain(prompt("a")).source).toBe("default");
  });

  test("stub:error <status> <n> fails the same turn n times, a new turn again n times", () => {
    const script = createScript();
    const kinds = [1, 2, 3].map(() => script.nextForMain(prompt("stub:error 500 2")).reply.kind);
    expect(kinds).toEqual(["error", "error", "message"]);
    expect(script.nextForMain(prompt("stub:error 500 2", 4)).reply.kind).toBe("error");
  });

  test("a stub:tool call gets the full name of the first offered tool containing its part", () => {
    const script = createScript();
    const offered = ["Bash", "mcp__umbel_structured__StructuredOutput"];
    const first = script.nextForMain(prompt("stub:tool StructuredOutput {}"), offered).reply;
    expect(first).toMatchObject({ blocks: [{ name: "mcp__umbel_structured__StructuredOutput" }] });
    expect(JSON.stringify(first)).not.toContain('"match"');
    expect(script.nextForMain(prompt("stub:tool Nope {}"), offered).reply).toMatchObject({
      blocks: [{ name: "Nope" }],
    });
  });

  test("a continuation answers the tool result it was remembered for", () => {
    const script = createScript();
    script.remember(["toolu_a", "toolu_b"], { kind: "hang" });
    const turn: MainTurn = {
      trigger: "tool_result",
      prompt: "",
      injected: "",
      toolResults: [{ toolUseId: "toolu_b", isError: false, text: "ok" }],
      messageCount: 4,
    };
    expect(script.nextForMain(turn)).toEqual({ reply: { kind: "hang" }, source: "continuation" });
    expect(script.nextForMain(turn).source).toBe("default");
  });
});
