// The stub model server over plain fetch: wire format, scripting, faults and side requests.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { renderPromptEcho } from "./digest.ts";
import { bash, cutStream, hang, httpError, malformed, slowText, text, thinking } from "./replies.ts";
import { claudeFirstTurn, postJson, readSse, streamedText } from "./sse-client.ts";
import { type StubModel, startStubModel } from "./stub-model.ts";

let stub: StubModel;
let messages: string;

beforeAll(async () => {
  stub = await startStubModel({ dialect: "anthropic" });
  messages = `${stub.url}/v1/messages?beta=true`;
});
afterEach(() => stub.reset());
afterAll(() => stub.stop());

describe("routes", () => {
  test("HEAD /api/hello and any other GET are probes answered 200", async () => {
    expect((await fetch(`${stub.url}/api/hello`, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(`${stub.url}/whatever`)).status).toBe(200);
    expect(stub.requests.map((request) => [request.kind, request.path])).toEqual([
      ["probe", "/api/hello"],
      ["probe", "/whatever"],
    ]);
  });

  test("GET /v1/models lists models; count_tokens counts", async () => {
    const models = (await (await fetch(`${stub.url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toContain("claude-opus-5-5");
    const counted = await postJson(`${stub.url}/v1/messages/count_tokens`, claudeFirstTurn("count me"));
    expect(((await counted.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    expect(stub.requests.map((request) => request.kind)).toEqual(["models", "count_tokens"]);
  });

  test("an unknown POST is a 404 in the API's error shape", async () => {
    const response = await postJson(`${stub.url}/v1/nope`, {});
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "not_found_error" } });
  });
});

describe("main turns", () => {
  test("the default reply echoes a digest of the typed prompt, reminders stripped", async () => {
    const prompt = "line one\n\tline two é 🎉";
    const events = await readSse(await postJson(messages, claudeFirstTurn(prompt)));
    expect(events.map((event) => event.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(streamedText(events)).toBe(renderPromptEcho(prompt));
    expect(events[7]?.data).toMatchObject({
      delta: { stop_reason: "end_turn" },
      usage: { output_tokens: expect.any(Number) },
    });
    const [request] = stub.mainRequests();
    expect(request).toMatchObject({ kind: "main", stream: true, prompt, answered: "message text" });
    expect(request?.headers["x-api-key"]).toBe("sk-ant-test-stub");
  });

  test("non-streaming requests get a JSON message", async () => {
    const response = await postJson(messages, claudeFirstTurn("plain json", { stream: false }));
    expect(await response.json()).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: renderPromptEcho("plain json") }],
      stop_reason: "end_turn",
    });
  });

  test("the queue answers in order, then the default returns", async () => {
    stub.script(text("first"), text("second"));
    expect(stub.queued()).toBe(2);
    const answers = [];
    for (const prompt of ["a", "b", "c"])
      answers.push(streamedText(await readSse(await postJson(messages, claudeFirstTurn(prompt)))));
    expect(answers).toEqual(["first", "second", renderPromptEcho("c")]);
  });

  test("a tool call streams its input as JSON deltas and `then` answers its result", async () => {
    stub.script(bash("echo hi", text("after the tool")));
    const events = await readSse(await postJson(messages, claudeFirstTurn("run it")));
    const start = events.find((event) => event.event === "content_block_start")?.data as {
      content_block: { id: string; name: string };
    };
    expect(start.content_block.name).toBe("Bash");
    const json = events
      .map((event) => event.data as { delta?: { type: string; partial_json?: string } })
      .filter((data) => data.delta?.type === "input_json_delta")
      .map((data) => data.delta?.partial_json)
      .join("");
    expect(JSON.parse(json)).toEqual({ command: "echo hi", description: "stub bash" });
    expect(events.at(-2)?.data).toMatchObject({ delta: { stop_reason: "tool_use" } });

    const followUp = claudeFirstTurn("run it");
    (followUp.messages as unknown[]).push(
      {
        role: "assistant",
        content: [{ type: "tool_use", id: start.content_block.id, name: "Bash", input: {} }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: start.content_block.id, content: "hi" }],
      },
    );
    expect(streamedText(await readSse(await postJson(messages, followUp)))).toBe("after the tool");
    expect(stub.mainRequests()[1]?.main).toMatchObject({
      trigger: "tool_result",
      toolResults: [{ text: "hi" }],
    });
  });

  test("stub:tool calls the offered tool whose name contains the part (claude: mcp__<server>__<tool>)", async () => {
    const body = claudeFirstTurn('stub:tool StructuredOutput {"a":1}');
    body.tools = [{ name: "Bash" }, { name: "mcp__umbel_structured__StructuredOutput" }];
    const events = await readSse(await postJson(messages, body));
    const start = events.find((event) => event.event === "content_block_start")?.data as {
      content_block: { name: string };
    };
    expect(start.content_block.name).toBe("mcp__umbel_structured__StructuredOutput");
  });

  test("thinking comes before the text, with a signature", async () => {
    stub.script(thinking("hmm", "answer"));
    const events = await readSse(await postJson(messages, claudeFirstTurn("think")));
    const deltas = events
      .filter((event) => event.event === "content_block_delta")
      .map((event) => (event.data as { delta: { type: string } }).delta.type);
    expect(deltas).toEqual([
      ...["thinking_delta", "thinking_delta", "thinking_delta", "signature_delta"],
      ...["text_delta", "text_delta", "text_delta"],
    ]);
    expect(streamedText(events)).toBe("answer");
  });

  test("slow text arrives in the asked number of chunks, paced", async () => {
    stub.script(slowText("0123456789", 5, 40));
    const started = performance.now();
    const events = await readSse(await postJson(messages, claudeFirstTurn("slow")));
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(events.filter((event) => event.event === "content_block_delta")).toHaveLength(5);
    expect(streamedText(events)).toBe("0123456789");
  });
});

describe("faults", () => {
  test.each([
    [401, "authentication_error"],
    [404, "not_found_error"],
    [429, "rate_limit_error"],
    [500, "api_error"],
    [529, "overloaded_error"],
  ])("HTTP %p (%s) twice, then the next request recovers", async (status, type) => {
    stub.script(httpError(status, 2));
    const first = await postJson(messages, claudeFirstTurn("x"));
    expect(await first.json()).toMatchObject({ type: "error", error: { type }, request_id: "req_stub_0" });
    const rest = [];
    for (let attempt = 0; attempt < 2; attempt++)
      rest.push((await postJson(messages, claudeFirstTurn("x"))).status);
    expect([first.status, ...rest]).toEqual([status, status, 200]);
  });

  test("the stub:error directive fails the same prompt on every retry", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await postJson(messages, claudeFirstTurn("stub:error 529"))).status).toBe(529);
    }
  });

  test("a malformed stream has a data line that is not JSON", async () => {
    stub.script(malformed());
    const events = await readSse(await postJson(messages, claudeFirstTurn("x")));
    expect(events.map((event) => event.json)).toEqual([true, true, false]);
  });

  test("a cut stream resets the connection after a partial delta", async () => {
    stub.script(cutStream());
    const response = await postJson(messages, claudeFirstTurn("x"));
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let received = "";
    const failure = await (async () => {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return "ended cleanly";
        received += new TextDecoder().decode(chunk.value);
      }
    })().catch((error: unknown) => String(error));
    expect(failure).toContain("ECONNRESET");
    expect(received).toContain("STUB-CUT partial");
  });

  test("a hanging request is seen at once and released by stop()", async () => {
    const own = await startStubModel({ dialect: "anthropic" });
    own.script(hang());
    const pending = postJson(`${own.url}/v1/messages`, claudeFirstTurn("wait forever")).then(
      (response) => response.status,
      () => "reset",
    );
    const seen = await own.waitForRequest((request) => request.kind === "main", 2_000);
    expect(seen.answered).toBe("hang");
    await own.stop();
    expect(["reset", 503]).toContain(await pending);
  });

  test("waitForRequest rejects at its deadline", async () => {
    await expect(stub.waitForRequest(() => false, 50)).rejects.toThrow("no matching request within 50 ms");
  });
});

describe("side requests", () => {
  test("the title request gets a JSON title", async () => {
    const body = {
      model: "claude-opus-5-5",
      stream: true,
      output_config: {
        format: { type: "json_schema", schema: { properties: { title: { type: "string" } } } },
      },
      messages: [{ role: "user", content: [{ type: "text", text: "<session>\nhi\n</session>" }] }],
    };
    const answer = streamedText(await readSse(await postJson(messages, body)));
    expect(JSON.parse(answer)).toEqual({ title: "Stub title" });
    expect(stub.requests[0]?.kind).toBe("title");
  });

  test("the classifier allows, cut at its stop sequence; stub:deny blocks", async () => {
    const classify = (said: string) => ({
      model: "claude-sonnet-5",
      max_tokens: 64,
      stop_sequences: ["</block>"],
      system: "You are a security monitor for autonomous AI coding agents.",
      messages: [
        { role: "user", content: [{ type: "text", text: `<transcript>{"user":"${said}"}</transcript>` }] },
      ],
    });
    const allowed = (await (await postJson(messages, classify("ls"))).json()) as Record<string, unknown>;
    expect(allowed).toMatchObject({
      content: [{ text: "<block>no" }],
      stop_reason: "stop_sequence",
      stop_sequence: "</block>",
    });
    const denied = (await (await postJson(messages, classify("rm stub:deny"))).json()) as Record<
      string,
      unknown
    >;
    expect(denied).toMatchObject({ content: [{ text: "<block>yes" }] });
    expect(stub.requests.map((request) => request.kind)).toEqual(["classifier", "classifier"]);
  });

  test("a TUI subagent hands back through SubagentHandback; a print-mode one answers in text", async () => {
    const subagent = (tools: string[]) => ({
      ...claudeFirstTurn("look around"),
      tools: tools.map((name) => ({ name, input_schema: { type: "object" } })),
    });
    const headers = { "x-claude-code-agent-id": "a123" };
    const tui = await readSse(await postJson(messages, subagent(["Bash", "SubagentHandback"]), headers));
    const start = tui.find((event) => event.event === "content_block_start")?.data;
    expect(start).toMatchObject({ content_block: { type: "tool_use", name: "SubagentHandback" } });
    const print = streamedText(await readSse(await postJson(messages, subagent(["Bash"]), headers)));
    expect(print).toBe(renderPromptEcho("look around", "STUB-SUBAGENT-REPORT"));
    expect(stub.requests.map((request) => request.kind)).toEqual(["subagent", "subagent"]);
    expect(stub.mainRequests()).toHaveLength(0);
  });

  test("side requests leave the main queue alone", async () => {
    stub.script(text("for the main turn"));
    await postJson(messages, {
      system: "You are a security monitor for autonomous AI coding agents",
      messages: [],
    });
    expect(stub.queued()).toBe(1);
  });
});
