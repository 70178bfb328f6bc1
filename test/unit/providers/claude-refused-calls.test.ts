import { describe, expect, test } from "bun:test";
import { unloadedToolCalls } from "../../../src/core/providers/claude/transcript.ts";

/**
 * claude 2.1.332 under load sent a turn's first request while umbel's StructuredOutput server was
 * still connecting; the model's call was answered by claude itself, "No such tool available", and
 * never reached the server (a print-parity CI failure: 4 calls recorded of the model's 5).
 */
const human = (promptId: string, text: string) => ({
  type: "user",
  promptId,
  origin: { kind: "human" },
  message: { role: "user", content: text },
});
const call = (id: string, name: string) => ({
  type: "assistant",
  message: {
    id: `m-${id}`,
    role: "assistant",
    content: [{ type: "tool_use", id, name, input: { answer: 1 } }],
  },
});
const result = (promptId: string, id: string, content: string) => ({
  type: "user",
  promptId,
  message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, is_error: true, content }] },
});
const NO_TOOL = (name: string) => `<tool_use_error>Error: No such tool available: ${name}</tool_use_error>`;
const jsonl = (lines: object[]) => `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;

describe("unloadedToolCalls", () => {
  const transcript = jsonl([
    human("p1", "first"),
    call("t1", "StructuredOutput"),
    result("p1", "t1", NO_TOOL("StructuredOutput")),
    call("t2", "mcp__umbel_structured__StructuredOutput"),
    result("p1", "t2", NO_TOOL("mcp__umbel_structured__StructuredOutput")),
    call("t3", "mcp__umbel_structured__StructuredOutput"),
    result("p1", "t3", "Output does not match required schema: /answer: must be string"),
    call("t4", "Bash"),
    result("p1", "t4", NO_TOOL("Bash")),
    human("p2", "second"),
    call("t5", "StructuredOutput"),
    result("p2", "t5", NO_TOOL("StructuredOutput")),
  ]);

  test("counts the turn's calls of the tool, by either name, that claude refused itself", () => {
    expect(unloadedToolCalls(transcript, "p1", "StructuredOutput")).toBe(2);
  });
  test("a rejection by the server, another tool, and another turn's calls are not counted", () => {
    expect(unloadedToolCalls(transcript, "p2", "StructuredOutput")).toBe(1);
    expect(unloadedToolCalls(transcript, "p1", "Bash")).toBe(1);
    expect(unloadedToolCalls(jsonl([human("p1", "x")]), "p1", "StructuredOutput")).toBe(0);
  });
  test("a torn last line and an unknown prompt: what is whole is read; no turn, none", () => {
    expect(unloadedToolCalls(`${transcript}{"type":"user","prom`, "p2", "StructuredOutput")).toBe(1);
    expect(unloadedToolCalls("", "p1", "StructuredOutput")).toBe(0);
  });
});
