// The stub's usage limits in each dialect: the 429 each pinned CLI treats as a limit (limits.ts).
import { afterAll, describe, expect, test } from "bun:test";
import { geminiFirstTurn, postGemini } from "./gemini-client.ts";
import { limit } from "./limits.ts";
import { codexTurn, postResponses } from "./openai-client.ts";
import { text } from "./replies.ts";
import { claudeFirstTurn, postJson } from "./sse-client.ts";
import { type StubModel, startStubModel } from "./stub-model.ts";

const stubs: StubModel[] = [];
const start = async (dialect: "anthropic" | "openai" | "gemini") => {
  const stub = await startStubModel({ dialect });
  stubs.push(stub);
  return stub;
};
afterAll(() => Promise.all(stubs.map((s) => s.stop())));
const now = () => Math.floor(Date.now() / 1000);

describe("anthropic", () => {
  test("a limit is a 429 with the unified rate-limit headers a subscriber's claude stops on", async () => {
    const stub = await start("anthropic");
    stub.script(limit(90, "seven_day"));
    const response = await postJson(`${stub.url}/v1/messages`, claudeFirstTurn("limit me"));
    expect(response.status).toBe(429);
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    const reset = Number(response.headers.get("anthropic-ratelimit-unified-reset"));
    expect(Math.abs(reset - (now() + 90))).toBeLessThanOrEqual(2);
    expect(response.headers.get("anthropic-ratelimit-unified-representative-claim")).toBe("seven_day");
    expect(response.headers.get("anthropic-ratelimit-unified-7d-utilization")).toBe("1.0");
    expect(stub.requests.at(-1)?.answered).toBe("limit");
  });

  test("stub:limit <secs> [window] [times] counts per first prompt line (claude merges its continuation in)", async () => {
    const stub = await start("anthropic");
    const first = "go stub:limit 30 five_hour 1";
    expect((await postJson(`${stub.url}/v1/messages`, claudeFirstTurn(first))).status).toBe(429);
    const merged = `${first}\nYour claude.ai usage limit has reset. Continue the task`;
    expect((await postJson(`${stub.url}/v1/messages`, claudeFirstTurn(merged))).status).toBe(200);
  });

  test("setHeaders adds headers ({now+N} templated) to ordinary answers", async () => {
    const stub = await start("anthropic");
    stub.setHeaders({ "anthropic-ratelimit-unified-5h-reset": "{now+600}", "x-other": "1" });
    stub.script(text("ok"));
    const response = await postJson(`${stub.url}/v1/messages`, claudeFirstTurn("hi"));
    await response.text();
    const reset = Number(response.headers.get("anthropic-ratelimit-unified-5h-reset"));
    expect(Math.abs(reset - (now() + 600))).toBeLessThanOrEqual(2);
    stub.setHeaders(undefined);
    const plain = await postJson(`${stub.url}/v1/messages`, claudeFirstTurn("hi"));
    await plain.text();
    expect(plain.headers.get("x-other")).toBeNull();
  });
});

describe("several accounts (issue 24)", () => {
  test("a rule by the caller's token: one account is limited each time, the other answered, each with its windows", async () => {
    const stub = await start("anthropic");
    stub.setHeaders({ "x-windows": "default" });
    stub.setRule((request) =>
      request.headers.authorization === "Bearer tok-a"
        ? { reply: limit(600, "five_hour"), headers: { "x-windows": "a" } }
        : request.headers.authorization === "Bearer tok-b"
          ? { headers: { "x-windows": "b" } }
          : undefined,
    );
    stub.script(text("queued for b"));
    const post = (token: string) =>
      postJson(`${stub.url}/v1/messages`, claudeFirstTurn("hi"), { authorization: `Bearer ${token}` });
    for (const round of [1, 2]) {
      const a = await post("tok-a");
      expect({ round, status: a.status, windows: a.headers.get("x-windows") }).toEqual({
        round,
        status: 429,
        windows: "a",
      });
      await a.text();
    }
    const b = await post("tok-b");
    expect({ status: b.status, windows: b.headers.get("x-windows") }).toEqual({ status: 200, windows: "b" });
    expect(stub.mainRequests().at(-1)?.answered).not.toBe("limit");
    expect(stub.queued()).toBe(0);
    await b.text();
    const other = await post("tok-c");
    expect(other.headers.get("x-windows")).toBe("default");
    await other.text();
    stub.setRule(undefined);
    const after = await post("tok-a");
    expect(after.status).toBe(200);
    await after.text();
  });
});

describe("openai (codex)", () => {
  test("usage_limit_reached with a numeric resets_at and the x-codex window headers", async () => {
    const stub = await start("openai");
    stub.script(limit(120, "pro"));
    const response = await postResponses(stub.url, codexTurn("limit me"));
    expect(response.status).toBe(429);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: "usage_limit_reached", plan_type: "pro" });
    expect(typeof body.error.resets_at).toBe("number");
    expect(response.headers.get("x-codex-primary-used-percent")).toBe("100");
    expect(response.headers.get("x-codex-primary-window-minutes")).toBe("300");
  });
});

describe("gemini", () => {
  const url = (stub: StubModel) => `${stub.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`;

  test("daily: a QuotaFailure with a PerDay quota id (no reset time)", async () => {
    const stub = await start("gemini");
    stub.script(limit(0, "daily"));
    const response = await postGemini(url(stub), geminiFirstTurn("q"));
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect(JSON.stringify(body.error.details)).toContain("PerDay");
  });

  test("with a reset: a RetryInfo over 300 s and 'Please retry in Ns'", async () => {
    const stub = await start("gemini");
    const response = await postGemini(url(stub), geminiFirstTurn("q stub:limit 3600 retry"));
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error.message).toBe("You exceeded your current quota. Please retry in 3600s.");
    expect(JSON.stringify(body.error.details)).toContain('"retryDelay":"3600s"');
  });
});
