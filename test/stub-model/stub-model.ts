// A loopback model server for tests: one per test file, a free port, every request recorded.
//   const stub = await startStubModel({ dialect: "anthropic" });
//   stub.script(bash("echo hi", text("done")));  …  await stub.stop();
import { anthropicDialect } from "./anthropic.ts";
import type { Dialect } from "./dialect.ts";
import { geminiDialect } from "./gemini.ts";
import { templateHeaders } from "./limits.ts";
import { openaiChatDialect } from "./openai-chat.ts";
import { openaiDialect } from "./openai-responses.ts";
import { createScript } from "./script.ts";
import type { DialectName, StubModelOptions, StubReply, StubRequest } from "./types.ts";

export interface StubModel {
  /** `http://127.0.0.1:<port>`, without a trailing slash: the value for ANTHROPIC_BASE_URL. */
  readonly url: string;
  readonly port: number;
  /** Every request in arrival order, the log is live (appended to as requests come). */
  readonly requests: readonly StubRequest[];
  mainRequests(): StubRequest[];
  /** Appends replies to the FIFO queue used by main requests. */
  script(...replies: StubReply[]): void;
  /** Replaces (or with undefined restores) the default reply for main requests. */
  setDefault(reply: StubReply | undefined): void;
  /** How many scripted replies have not been used yet. */
  queued(): number;
  /**
   * Headers added to every answer of a model request that has no such header of its own (e.g. the
   * usage-window headers a subscriber's claude puts in its statusline); `{now+N}` is unix seconds N
   * from each answer. undefined removes them.
   */
  setHeaders(headers: Readonly<Record<string, string>> | undefined): void;
  /**
   * A rule per request, for tests of several accounts (the caller's token or base path tells them
   * apart): for a main request it matches, `reply` answers before the queue, every time, without
   * using the queue up; `headers` take setHeaders' place for any request it matches. undefined
   * removes the rule.
   */
  setRule(rule: StubRule | undefined): void;
  /** Resolves with the first logged request (past or future) that matches, or rejects at the deadline. */
  waitForRequest(match: (request: StubRequest) => boolean, timeoutMs?: number): Promise<StubRequest>;
  /** Clears the log (numbering restarts at 0), the queue, tool continuations and directive counters. */
  reset(): void;
  /** Releases hanging requests, closes every connection and the port. */
  stop(): Promise<void>;
}

const DIALECTS: Record<DialectName, Dialect> = {
  anthropic: anthropicDialect,
  openai: openaiDialect,
  gemini: geminiDialect,
  "openai-chat": openaiChatDialect,
};

export type StubRule = (
  request: StubRequest,
) => { readonly reply?: StubReply; readonly headers?: Readonly<Record<string, string>> } | undefined;

export async function startStubModel(options: StubModelOptions): Promise<StubModel> {
  const dialect = DIALECTS[options.dialect];
  const script = createScript(options.defaultReply);
  const stopping = new AbortController();
  const requests: StubRequest[] = [];
  const waiters = new Set<(request: StubRequest) => void>();
  const started = performance.now();
  let seq = 0;
  let extraHeaders: Readonly<Record<string, string>> | undefined;
  let rule: StubRule | undefined;

  const server = Bun.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: 0,
    // Slow streams and hanging requests must outlive Bun's 10 s default idle timeout.
    idleTimeout: 0,
    // Keeps Bun from printing the deliberate stream errors of `cut` replies.
    development: false,
    async fetch(req) {
      const url = new URL(req.url);
      const raw = await req.text();
      const record: StubRequest = {
        seq: seq++,
        at: Math.round(performance.now() - started),
        method: req.method,
        path: url.pathname,
        query: url.search,
        headers: Object.fromEntries(req.headers),
        body: parseBody(raw),
        kind: "other",
        stream: false,
      };
      requests.push(record);
      const ruled = rule?.(record);
      const ruledReply = ruled?.reply;
      // The rule's reply answers a main request before the queue (the dialect asks the script).
      const scriptFor: typeof script = ruledReply
        ? { ...script, nextForMain: () => ({ reply: ruledReply, source: "queue" }) }
        : script;
      const response = dialect.handle(
        {
          method: req.method,
          path: url.pathname,
          headers: req.headers,
          body: record.body,
          signal: req.signal,
          record,
        },
        { script: scriptFor, classifier: options.classifier ?? "allow", stopped: stopping.signal },
      );
      // The dialect classifies synchronously, so waiters see a hanging request too.
      for (const notify of waiters) notify(record);
      const extra = ruled?.headers ?? extraHeaders;
      return extra === undefined ? response : withHeaders(await response, templateHeaders(extra));
    },
  });

  const url = `http://${server.hostname}:${server.port}`;
  return {
    url,
    port: server.port ?? 0,
    requests,
    mainRequests: () => requests.filter((request) => request.kind === "main"),
    script: (...replies) => script.enqueue(replies),
    setDefault: (reply) => script.setDefault(reply),
    queued: () => script.queued(),
    setHeaders: (headers) => {
      extraHeaders = headers;
    },
    setRule: (next) => {
      rule = next;
    },
    waitForRequest(match, timeoutMs = 10_000) {
      const seen = requests.find((request) => request.answered !== undefined && match(request));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const notify = (request: StubRequest) => {
          if (!match(request)) return;
          cleanup();
          resolve(request);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`stub model: no matching request within ${timeoutMs} ms (${requests.length} seen)`),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(notify);
        };
        waiters.add(notify);
      });
    },
    reset() {
      requests.length = 0;
      seq = 0;
      script.reset();
    },
    async stop() {
      stopping.abort();
      await server.stop(true);
    },
  };
}

/** The response with `extra` headers added where it has none of its own (its body untouched). */
function withHeaders(response: Response, extra: Record<string, string>): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(extra)) if (!headers.has(name)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

function parseBody(raw: string): unknown {
  if (raw === "") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
