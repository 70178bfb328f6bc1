// The Responses dialect over plain fetch: wire format, scripting, faults and side requests.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { renderPromptEcho, renderToolResultEcho } from "./digest.ts";
import {
  codexTitle,
  codexToolResult,
  codexTurn,
  ENVIRONMENT_CONTEXT,
  postResponses,
  responsesText,
  userMessage,
} from "./openai-client.ts";
import { readResponsesBody, readResponsesTurn } from "./openai-request.ts";
import { ESCALATE_REASON, STUB_CODEX_TITLE } from "./openai-responses.ts";
import { bash, cutStream, hang, httpError, malformed, slowText, text, thinking, write } from "./replies.ts";
import { readSse } from "./sse-client.ts";
import { type StubModel, startStubModel } from "./stub-model.ts";

let stub: StubModel;

beforeAll(async () => {
  stub = await startStubModel({ dialect: "openai" });
});
afterEach(() => stub.reset());
afterAll(() => stub.stop());

const ask = async (body: unknown) => readSse(await postResponses(stub.url, body));
const types = (events: Awaited<ReturnType<typeof ask>>) => events.map((event) => event.event);

describe("reading a request", () => {
  test.each([
    ["first turn: env context, then the prompt", [userMessage(ENVIRONMENT_CONTEXT), userMessage("hi")], "hi"],
    [
      "after an interrupt the marker comes before the new prompt",
      [
        userMessage("old"),
        userMessage("<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>"),
        userMessage("new"),
      ],
      "new",
    ],
    [
      "context injected after the prompt is skipped",
      [userMessage("the prompt"), userMessage(ENVIRONMENT_CONTEXT)],
      "the prompt",
    ],
    [
      "a prompt that mentions a tag is kept",
      [userMessage("explain <environment_context> x")],
      "explain <environment_context> x",
    ],
    ["surrounding whitespace is kept", [userMessage("  padded  ")], "  padded  "],
  ])("%s", (_name, input, prompt) => {
    const turn = readResponsesTurn(readResponsesBody({ input }).input);
    expect(turn).toMatchObject({ trigger: "prompt", prompt, messageCount: input.length });
  });

  test("tool outputs after the last user message make a tool_result turn; the header is dropped", () => {
    const turn = readResponsesTurn(readResponsesBody(codexToolResult("run", "call_1", "hi\n", 2)).input);
    expect(turn).toMatchObject({
      trigger: "tool_result",
      prompt: "",
      toolResults: [{ toolUseId: "call_1", isError: true, text: "hi\n" }],
    });
  });
});

describe("main turns", () => {
  test("the default reply echoes the typed prompt in the full event sequence", async () => {
    const prompt = "line one\n\tline two é 🎉";
    const events = await ask(codexTurn(prompt));
    expect(types(events)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(responsesText(events)).toBe(renderPromptEcho(prompt));
    expect(events.at(-2)?.data).toMatchObject({
      item: {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: renderPromptEcho(prompt) }],
      },
    });
    expect(events.at(-1)?.data).toMatchObject({
      response: {
        status: "completed",
        usage: { input_tokens: expect.any(Number), total_tokens: expect.any(Number) },
      },
    });
    expect(stub.mainRequests()[0]).toMatchObject({
      path: "/v1/responses",
      stream: true,
      model: "stub-model",
      prompt,
      answered: "message message",
    });
  });

  test("non-streaming requests get the response object as JSON", async () => {
    const response = await postResponses(stub.url, codexTurn("plain", { stream: false }));
    expect(await response.json()).toMatchObject({
      object: "response",
      status: "completed",
      output: [{ type: "message", content: [{ type: "output_text", text: renderPromptEcho("plain") }] }],
    });
  });

  test("the queue answers in order, then the echo returns", async () => {
    stub.script(text("first"), text("second"));
    const answers = [];
    for (const prompt of ["a", "b", "c"]) answers.push(responsesText(await ask(codexTurn(prompt))));
    expect(answers).toEqual(["first", "second", renderPromptEcho("c")]);
  });

  test("Bash becomes exec_command {cmd}; `then` answers its output, else the output is echoed", async () => {
    stub.script(bash("echo hi", text("after the tool")), bash("ls"));
    const events = await ask(codexTurn("run it"));
    const done = events.find((event) => event.event === "response.output_item.done")?.data as {
      item: { type: string; name: string; arguments: string; call_id: string };
    };
    expect(done.item).toMatchObject({ type: "function_call", name: "exec_command" });
    expect(JSON.parse(done.item.arguments)).toEqual({ cmd: "echo hi" });
    const deltas = events.filter((event) => event.event === "response.function_call_arguments.delta");
    expect(deltas.map((event) => (event.data as { delta: string }).delta).join("")).toBe(done.item.arguments);
    const followUp = await ask(codexToolResult("run it", done.item.call_id, "hi\n"));
    expect(responsesText(followUp)).toBe("after the tool");

    const second = await ask(codexTurn("again"));
    const call = second.find((event) => event.event === "response.output_item.done")?.data as {
      item: { call_id: string };
    };
    expect(responsesText(await ask(codexToolResult("again", call.item.call_id, "a.txt\n")))).toBe(
      renderToolResultEcho("a.txt\n", false),
    );
  });

  test("stub:tool calls a namespaced MCP tool by part of its name, with `namespace` set", async () => {
    // codex 0.171.0 offers each MCP server's tools in a namespace `mcp__<server>`.
    const tools = [
      { type: "function", name: "exec_command" },
      {
        type: "namespace",
        name: "mcp__umbel_structured",
        tools: [{ type: "function", name: "StructuredOutput" }],
      },
    ];
    const events = await ask(codexTurn('stub:tool StructuredOutput {"a":1}', { tools }));
    const done = events.find((event) => event.event === "response.output_item.done")?.data as {
      item: Record<string, unknown>;
    };
    expect(done.item).toMatchObject({
      type: "function_call",
      name: "StructuredOutput",
      namespace: "mcp__umbel_structured",
      arguments: '{"a":1}',
    });
  });

  test("Write becomes an apply_patch heredoc inside exec_command", async () => {
    stub.script(write("notes.txt", "one\ntwo"));
    const events = await ask(codexTurn("write it"));
    const done = events.find((event) => event.event === "response.output_item.done")?.data as {
      item: { arguments: string };
    };
    expect(JSON.parse(done.item.arguments).cmd).toBe(
      "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.txt\n+one\n+two\n*** End Patch\nEOF\n",
    );
  });

  test("thinking is a reasoning item with a summary, before the message", async () => {
    stub.script(thinking("hmm", "answer"));
    const events = await ask(codexTurn("think"));
    const items = events
      .filter((event) => event.event === "response.output_item.done")
      .map((event) => (event.data as { item: { type: string } }).item.type);
    expect(items).toEqual(["reasoning", "message"]);
    expect(responsesText(events)).toBe("answer");
  });

  test("slow text arrives in the asked number of deltas, paced", async () => {
    stub.script(slowText("0123456789", 5, 40));
    const started = performance.now();
    const events = await ask(codexTurn("slow"));
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(events.filter((event) => event.event === "response.output_text.delta")).toHaveLength(5);
  });
});

describe("faults", () => {
  test.each([
    [401, "invalid_api_key"],
    [429, "rate_limit_exceeded"],
    [500, null],
  ])("HTTP %p twice, then the next request recovers", async (status, code) => {
    stub.script(httpError(status, 2));
    const first = await postResponses(stub.url, codexTurn("x"));
    expect(await first.json()).toMatchObject({ error: { code, message: `stub error ${status}` } });
    const rest = [];
    for (let attempt = 0; attempt < 2; attempt++)
      rest.push((await postResponses(stub.url, codexTurn("x"))).status);
    expect([first.status, ...rest]).toEqual([status, status, 200]);
  });

  test("`stub:error 500 2` fails the same turn twice (codex retries with the same input), then echoes", async () => {
    const statuses = [];
    for (let attempt = 0; attempt < 3; attempt++)
      statuses.push((await postResponses(stub.url, codexTurn("stub:error 500 2"))).status);
    expect(statuses).toEqual([500, 500, 200]);
  });

  test("a malformed stream has a data line that is not JSON; stub:failed sends response.failed", async () => {
    stub.script(malformed());
    expect((await ask(codexTurn("x"))).map((event) => event.json)).toEqual([true, true, true, false]);
    const failed = await ask(codexTurn("stub:failed"));
    expect(failed.at(-1)?.data).toMatchObject({
      type: "response.failed",
      response: { status: "failed", error: { message: "stub response.failed" } },
    });
    expect(stub.mainRequests().map((request) => request.answered)).toEqual(["malformed", "failed"]);
  });

  test("a cut stream resets the connection after a partial delta", async () => {
    stub.script(cutStream());
    const response = await postResponses(stub.url, codexTurn("x"));
    const failure = await response.text().then(
      () => "ended cleanly",
      (error: unknown) => String(error),
    );
    expect(failure).not.toBe("ended cleanly");
  });

  test("hang sends no headers; stall sends a first delta and then nothing; stop() releases both", async () => {
    const own = await startStubModel({ dialect: "openai" });
    own.script(hang());
    const hanging = postResponses(own.url, codexTurn("wait")).then(
      (response) => response.status,
      () => "reset",
    );
    expect((await own.waitForRequest((request) => request.kind === "main", 2_000)).answered).toBe("hang");
    const stalled = await postResponses(own.url, codexTurn("stub:stall"));
    expect(stalled.status).toBe(200);
    const reader = (stalled.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("STUB-STALL partial");
    await own.stop();
    expect(["reset", 503]).toContain(await hanging);
  });
});

describe("side requests", () => {
  test("the title request gets a JSON title and leaves the queue alone", async () => {
    stub.script(text("for the main turn"));
    const answer = responsesText(await ask(codexTitle("Say hello")));
    expect(JSON.parse(answer)).toEqual({ title: STUB_CODEX_TITLE });
    expect(stub.requests[0]).toMatchObject({ kind: "title", prompt: "Say hello" });
    expect(stub.queued()).toBe(1);
  });

  test("the guardian's json_schema gets outcome allow, or deny when the conversation says stub:deny", async () => {
    const guardian = (said: string) => ({
      ...codexTurn(said),
      text: {
        format: {
          type: "json_schema",
          name: "guardian",
          schema: {
            type: "object",
            properties: {
              outcome: { type: "string", enum: ["allow", "deny"] },
              rationale: { type: "string" },
            },
            required: ["outcome", "rationale"],
          },
        },
      },
    });
    expect(JSON.parse(responsesText(await ask(guardian("rm x"))))).toEqual({
      outcome: "allow",
      rationale: "stub",
    });
    expect(JSON.parse(responsesText(await ask(guardian("rm x stub:deny"))))).toMatchObject({
      outcome: "deny",
    });
    expect(stub.requests.map((request) => request.kind)).toEqual(["classifier", "classifier"]);
  });

  test("stub:escalate asks to leave the sandbox", async () => {
    const events = await ask(codexTurn("stub:escalate touch /x"));
    const done = events.find((event) => event.event === "response.output_item.done")?.data as {
      item: { arguments: string };
    };
    expect(JSON.parse(done.item.arguments)).toEqual({
      cmd: "touch /x",
      sandbox_permissions: "require_escalated",
      justification: ESCALATE_REASON,
    });
  });

  test("routes: models list, websocket upgrade refused, probes, unknown POST", async () => {
    const models = (await (await fetch(`${stub.url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toContain("stub-model");
    expect((await fetch(`${stub.url}/v1/responses`, { headers: { upgrade: "websocket" } })).status).toBe(404);
    expect((await fetch(`${stub.url}/anything`, { method: "HEAD" })).status).toBe(200);
    const unknown = await fetch(`${stub.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { type: "invalid_request_error" } });
  });
});
