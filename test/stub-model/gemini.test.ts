// The Gemini dialect of the stub model over plain fetch: routes, wire format, scripting, faults,
// side requests. test/real/gemini-stub.test.ts proves the same against the real gemini-cli.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { renderPromptEcho } from "./digest.ts";
import {
  geminiFirstTurn,
  geminiToolResult,
  postGemini,
  readGeminiSse,
  SESSION_CONTEXT,
  streamedGeminiText,
} from "./gemini-client.ts";
import { dailyQuotaExhausted, rateLimited } from "./gemini-replies.ts";
import { bash, cutStream, hang, httpError, malformed, slowText, text, thinking, write } from "./replies.ts";
import { type StubModel, startStubModel } from "./stub-model.ts";

let stub: StubModel;
let stream: string;
let generate: string;

beforeAll(async () => {
  stub = await startStubModel({ dialect: "gemini" });
  stream = `${stub.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`;
  generate = `${stub.url}/v1beta/models/gemini-3.5-flash-lite:generateContent`;
});
afterEach(() => stub.reset());
afterAll(() => stub.stop());

describe("routes", () => {
  test("countTokens counts, GET models lists, other GETs are probes, unknown POSTs 404", async () => {
    const counted = await postGemini(
      `${stub.url}/v1beta/models/gemini-2.5-flash:countTokens`,
      geminiFirstTurn("x"),
    );
    expect(((await counted.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    const models = (await (await fetch(`${stub.url}/v1beta/models`)).json()) as {
      models: { name: string }[];
    };
    expect(models.models.map((model) => model.name)).toContain("models/gemini-2.5-flash");
    expect((await fetch(`${stub.url}/whatever`)).status).toBe(200);
    const missing = await postGemini(`${stub.url}/v1beta/nope`, {});
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 404, status: "NOT_FOUND" } });
    expect(stub.requests.map((request) => request.kind)).toEqual([
      "count_tokens",
      "models",
      "probe",
      "other",
    ]);
  });
});

describe("main turns (streamGenerateContent)", () => {
  test("the default reply echoes a digest of the typed prompt; session context stripped", async () => {
    const prompt = "line one\n\tline two é 🎉 what? yes!";
    const response = await postGemini(stream, geminiFirstTurn(prompt));
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const { chunks, raw } = await readGeminiSse(response);
    expect(raw).toContain("\r\n\r\n");
    expect(streamedGeminiText(chunks)).toBe(renderPromptEcho(prompt));
    // three text chunks, then the finishing chunk with finishReason and usage
    expect(chunks).toHaveLength(4);
    expect(chunks.at(-1)).toMatchObject({
      candidates: [{ finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: expect.any(Number) },
      modelVersion: "gemini-2.5-flash",
    });
    const [main] = stub.mainRequests();
    expect(main).toMatchObject({ kind: "main", stream: true, model: "gemini-2.5-flash", prompt });
    expect(main?.main).toMatchObject({ trigger: "prompt", injected: SESSION_CONTEXT, messageCount: 1 });
  });

  test("scripted replies come first, in order; the default echo after", async () => {
    stub.script(text("first"), slowText("slow one", 4, 5));
    const texts: string[] = [];
    for (let i = 0; i < 3; i++)
      texts.push(
        streamedGeminiText((await readGeminiSse(await postGemini(stream, geminiFirstTurn("q")))).chunks),
      );
    expect(texts).toEqual(["first", "slow one", renderPromptEcho("q")]);
    expect(stub.queued()).toBe(0);
  });

  test("thinking: a thought part, then the text", async () => {
    stub.script(thinking("pondering", "answer"));
    const { chunks } = await readGeminiSse(await postGemini(stream, geminiFirstTurn("q")));
    const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
    expect(
      parts
        .filter((part) => part.thought === true)
        .map((part) => part.text)
        .join(""),
    ).toBe("pondering");
    expect(streamedGeminiText(chunks)).toBe("answer");
  });

  test("Bash and Write map to gemini-cli's tools; the function response gets `then`", async () => {
    stub.script(bash("touch x.txt", text("ran it")), write("notes.txt", "hello"));
    const first = await readGeminiSse(await postGemini(stream, geminiFirstTurn("do it")));
    const call = first.chunks[0]?.candidates?.[0]?.content?.parts?.[0]?.functionCall as {
      id: string;
      name: string;
      args: Record<string, unknown>;
    };
    expect(call).toMatchObject({
      name: "run_shell_command",
      args: { command: "touch x.txt", description: "stub bash" },
    });
    expect(first.chunks.at(-1)?.candidates?.[0]?.finishReason).toBe("STOP");
    // gemini-cli answers with the id prefixed by the tool's name
    const prefixed = { ...call, id: `run_shell_command__${call.id}` };
    const second = await readGeminiSse(
      await postGemini(stream, geminiToolResult("do it", prefixed, "Output: (empty)")),
    );
    expect(streamedGeminiText(second.chunks)).toBe("ran it");
    expect(stub.mainRequests()[1]?.main).toMatchObject({
      trigger: "tool_result",
      toolResults: [{ toolUseId: prefixed.id, isError: false, text: "Output: (empty)" }],
    });
    const third = await readGeminiSse(await postGemini(stream, geminiFirstTurn("write it")));
    expect(third.chunks[0]?.candidates?.[0]?.content?.parts?.[0]).toMatchObject({
      functionCall: { name: "write_file", args: { file_path: "notes.txt", content: "hello" } },
    });
  });

  test("stub:tool calls an MCP tool by part of its name (gemini-cli: mcp_<server>_<tool>)", async () => {
    const tools = [
      {
        functionDeclarations: [
          { name: "run_shell_command" },
          { name: "mcp_umbel_structured_StructuredOutput" },
        ],
      },
    ];
    const { chunks } = await readGeminiSse(
      await postGemini(stream, geminiFirstTurn('stub:tool StructuredOutput {"a":1}', { tools })),
    );
    expect(chunks[0]?.candidates?.[0]?.content?.parts?.[0]).toMatchObject({
      functionCall: { name: "mcp_umbel_structured_StructuredOutput", args: { a: 1 } },
    });
  });

  test("a tool result with nothing scripted is echoed", async () => {
    const call = { id: "run_shell_command__c1", name: "run_shell_command", args: { command: "ls" } };
    const { chunks } = await readGeminiSse(await postGemini(stream, geminiToolResult("q", call, "a.txt")));
    expect(streamedGeminiText(chunks)).toStartWith("STUB-TOOL-RESULT is_error=false len=5");
  });
});

describe("faults", () => {
  test("an HTTP error in the API's shape, n times, then the echo", async () => {
    stub.script(httpError(500, 2));
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await postGemini(stream, geminiFirstTurn("q"))).status);
    expect(statuses).toEqual([500, 500, 200]);
    expect(stub.mainRequests().map((request) => request.answered)).toEqual([
      "error 500",
      "error 500",
      "message text",
    ]);
  });

  test("error bodies: google.rpc status names; a JSON message carries details", async () => {
    stub.script(httpError(404), dailyQuotaExhausted(), rateLimited(1, "2s"));
    expect(await (await postGemini(stream, geminiFirstTurn("q"))).json()).toEqual({
      error: { code: 404, message: "stub error 404", status: "NOT_FOUND" },
    });
    type ErrorBody = {
      error: { code: number; status: string; details: Record<string, unknown>[] };
    };
    const quota = (await (await postGemini(stream, geminiFirstTurn("q"))).json()) as ErrorBody;
    expect(quota.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect(JSON.stringify(quota.error.details)).toContain("PerDay");
    const limited = (await (await postGemini(stream, geminiFirstTurn("q"))).json()) as ErrorBody;
    expect(limited.error.details).toEqual([
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "2s" },
    ]);
  });

  test("stub:error <status> <n> answers every retry of its turn n times", async () => {
    const body = geminiFirstTurn("please stub:error 503 2");
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await postGemini(stream, body)).status);
    expect(statuses).toEqual([503, 503, 200]);
  });

  test("malformed: a data line that is not JSON; cut: the connection resets after a chunk", async () => {
    stub.script(malformed(), cutStream());
    const bad = await (await postGemini(stream, geminiFirstTurn("q"))).text();
    expect(bad).toStartWith('data: {"candidates":[{"content":{"parts":[{"text":"STUB-MALF');
    const cut = await postGemini(stream, geminiFirstTurn("q"));
    await expect(cut.text()).rejects.toThrow();
  });

  test("hang: never answered until the client gives up", async () => {
    stub.script(hang());
    const aborter = new AbortController();
    const pending = fetch(stream, {
      method: "POST",
      body: JSON.stringify(geminiFirstTurn("q")),
      signal: aborter.signal,
    });
    const seen = await stub.waitForRequest((request) => request.answered === "hang");
    expect(seen.kind).toBe("main");
    aborter.abort();
    await expect(pending).rejects.toThrow();
  });
});

describe("side requests (generateContent)", () => {
  test("the Auto router gets a complexity verdict", async () => {
    const body = {
      contents: [{ role: "user", parts: [{ text: "route me" }] }],
      generationConfig: {
        responseMimeType: "application/json",
        responseJsonSchema: {
          type: "object",
          properties: { complexity_reasoning: { type: "string" }, complexity_score: { type: "integer" } },
        },
      },
    };
    const json = (await (await postGemini(generate, body)).json()) as {
      candidates: { content: { parts: { text: string }[] } }[];
    };
    expect(JSON.parse(json.candidates[0]?.content.parts[0]?.text ?? "")).toEqual({
      complexity_reasoning: "stub router",
      complexity_score: 1,
    });
    expect(stub.requests[0]).toMatchObject({
      kind: "classifier",
      stream: false,
      model: "gemini-3.5-flash-lite",
    });
  });

  test("the session summary, and any other schema filled (enums take their first value)", async () => {
    const summary = {
      contents: [
        {
          role: "user",
          parts: [
            { text: "Summarize the user's primary intent or goal in this conversation in ONE sentence" },
          ],
        },
      ],
    };
    const answer = (await (await postGemini(generate, summary)).json()) as {
      candidates: { content: { parts: { text: string }[] } }[];
    };
    expect(answer.candidates[0]?.content.parts[0]?.text).toBe("Stub summary");
    const next = {
      contents: [{ role: "user", parts: [{ text: "who speaks next?" }] }],
      generationConfig: {
        responseJsonSchema: {
          type: "object",
          properties: {
            reasoning: { type: "string" },
            next_speaker: { type: "string", enum: ["user", "model"] },
          },
          required: ["reasoning", "next_speaker"],
        },
      },
    };
    const filled = (await (await postGemini(generate, next)).json()) as {
      candidates: { content: { parts: { text: string }[] } }[];
    };
    expect(JSON.parse(filled.candidates[0]?.content.parts[0]?.text ?? "")).toEqual({
      reasoning: "stub",
      next_speaker: "user",
    });
    expect(stub.requests.map((request) => request.kind)).toEqual(["title", "other"]);
    expect(stub.queued()).toBe(0);
  });
});
