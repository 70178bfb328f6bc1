// The Chat Completions dialect (opencode's) over plain fetch: wire format, scripting, faults, title.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { renderPromptEcho, renderToolResultEcho } from "./digest.ts";
import { STUB_CHAT_TITLE, STUB_QUESTION } from "./openai-chat.ts";
import { chatAnswer, opencodeTitle, opencodeTurn, postChat, toolRound, user } from "./openai-chat-client.ts";
import { readChatBody, readChatTurn } from "./openai-chat-request.ts";
import { bash, cutStream, hang, httpError, malformed, text, thinking, write } from "./replies.ts";
import { readSse } from "./sse-client.ts";
import { type StubModel, startStubModel } from "./stub-model.ts";

let stub: StubModel;

beforeAll(async () => {
  stub = await startStubModel({ dialect: "openai-chat" });
});
afterEach(() => stub.reset());
afterAll(() => stub.stop());

const ask = async (body: unknown) => chatAnswer(await readSse(await postChat(stub.url, body)));

describe("reading a request", () => {
  test.each([
    ["a string content", [user("hi there")], "hi there"],
    [
      "text parts are joined",
      [
        {
          role: "user",
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
      ],
      "ab",
    ],
    ["whitespace is kept", [user("  padded \n")], "  padded \n"],
    [
      "the last user message after an answer",
      [user("one"), { role: "assistant", content: "ok" }, user("two")],
      "two",
    ],
  ])("%s", (_name, messages, prompt) => {
    const turn = readChatTurn(readChatBody(opencodeTurn(messages)).messages);
    expect(turn).toMatchObject({ trigger: "prompt", prompt, messageCount: messages.length + 1 });
  });

  test("tool messages after the last assistant message make a tool_result turn", () => {
    const body = opencodeTurn([user("run"), ...toolRound("call_1", "bash", "hi\n")]);
    expect(readChatTurn(readChatBody(body).messages)).toMatchObject({
      trigger: "tool_result",
      prompt: "",
      toolResults: [{ toolUseId: "call_1", isError: false, text: "hi\n" }],
    });
  });
});

describe("main turns", () => {
  test("the default reply echoes the prompt: role delta, content deltas, finish, usage, [DONE]", async () => {
    const prompt = "line one\n\tline two é 🎉";
    const answer = await ask(opencodeTurn([user(prompt)]));
    expect(answer).toMatchObject({ text: renderPromptEcho(prompt), finish: "stop", done: true });
    expect(answer.usage).toMatchObject({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
    });
    expect(stub.mainRequests()[0]).toMatchObject({
      path: "/v1/chat/completions",
      stream: true,
      model: "stub-model",
      prompt,
      answered: "message text",
    });
  });

  test("no usage chunk unless stream_options asks for it; non-streaming gets chat.completion JSON", async () => {
    expect((await ask(opencodeTurn([user("x")], { stream_options: undefined }))).usage).toBeNull();
    const response = await postChat(stub.url, opencodeTurn([user("plain")], { stream: false }));
    expect(await response.json()).toMatchObject({
      object: "chat.completion",
      choices: [
        { message: { role: "assistant", content: renderPromptEcho("plain") }, finish_reason: "stop" },
      ],
      usage: { total_tokens: expect.any(Number) },
    });
  });

  test("Bash becomes bash {command, description}; `then` answers its result, else the result is echoed", async () => {
    stub.script(bash("echo hi", text("after the tool")), bash("ls"));
    const first = await ask(opencodeTurn([user("run it")]));
    expect(first.finish).toBe("tool_calls");
    expect(first.calls).toHaveLength(1);
    expect(first.calls[0]?.name).toBe("bash");
    expect(JSON.parse(first.calls[0]?.arguments ?? "")).toEqual({
      command: "echo hi",
      description: "stub bash",
    });
    const id = first.calls[0]?.id ?? "";
    expect((await ask(opencodeTurn([user("run it"), ...toolRound(id, "bash", "hi\n")]))).text).toBe(
      "after the tool",
    );
    const second = await ask(opencodeTurn([user("again")]));
    const again = second.calls[0]?.id ?? "";
    expect((await ask(opencodeTurn([user("again"), ...toolRound(again, "bash", "a.txt\n")]))).text).toBe(
      renderToolResultEcho("a.txt\n", false),
    );
  });

  test("Write becomes write {filePath, content}; thinking is reasoning_content before the text", async () => {
    stub.script(write("/tmp/x/notes.txt", "one\ntwo"), thinking("hmm", "answer"));
    const written = await ask(opencodeTurn([user("write it")]));
    expect(written.calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ["write", { filePath: "/tmp/x/notes.txt", content: "one\ntwo" }],
    ]);
    expect(await ask(opencodeTurn([user("think")]))).toMatchObject({ reasoning: "hmm", text: "answer" });
  });

  test("stub:question calls opencode's question tool with two options", async () => {
    const answer = await ask(opencodeTurn([user("stub:question")]));
    expect(answer.calls[0]?.name).toBe("question");
    const { questions } = JSON.parse(answer.calls[0]?.arguments ?? "");
    expect(questions[0]).toMatchObject({
      question: STUB_QUESTION.question,
      options: [{ label: "Red" }, { label: "Blue" }],
    });
  });

  test("the title request gets the title and never takes from the queue", async () => {
    stub.script(text("queued"));
    expect((await ask(opencodeTitle("my prompt"))).text).toBe(STUB_CHAT_TITLE);
    expect(stub.requests[0]).toMatchObject({ kind: "title", prompt: "my prompt" });
    expect(stub.queued()).toBe(1);
  });

  test("GET /v1/models lists the stub model", async () => {
    const list = (await (await fetch(`${stub.url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(list.data.map((m) => m.id)).toContain("stub-model");
  });
});

describe("faults", () => {
  test.each([
    [401, "invalid_api_key"],
    [429, "rate_limit_exceeded"],
    [500, null],
  ])("HTTP %p twice, then the next request recovers", async (status, code) => {
    stub.script(httpError(status, 2));
    const first = await postChat(stub.url, opencodeTurn([user("x")]));
    expect(await first.json()).toMatchObject({ error: { code, message: `stub error ${status}` } });
    const rest = [];
    for (let attempt = 0; attempt < 2; attempt++)
      rest.push((await postChat(stub.url, opencodeTurn([user("x")]))).status);
    expect([first.status, ...rest]).toEqual([status, status, 200]);
  });

  test("malformed: a data line that is not JSON; stub:streamerror: an error object in the stream", async () => {
    stub.script(malformed());
    const bad = await readSse(await postChat(stub.url, opencodeTurn([user("x")])));
    expect(bad.some((event) => !event.json)).toBe(true);
    const errored = await readSse(await postChat(stub.url, opencodeTurn([user("stub:streamerror")])));
    expect(errored.at(-1)?.data).toMatchObject({
      error: { type: "invalid_request_error", message: "stub stream error" },
    });
  });

  test("a cut stream is reset after a partial delta; a hang settles when the stub stops", async () => {
    stub.script(cutStream());
    const response = await postChat(stub.url, opencodeTurn([user("x")]));
    await expect(response.text()).rejects.toThrow();
    stub.script(hang());
    const pending = postChat(stub.url, opencodeTurn([user("y")]));
    await stub.waitForRequest((r) => r.answered === "hang");
    expect(stub.mainRequests().at(-1)?.answered).toBe("hang");
    void pending.catch(() => undefined);
  });
});
