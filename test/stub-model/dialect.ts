// The contract between the stub core (server, request log, script) and one vendor wire dialect.
import type { Script } from "./script.ts";
import type { StubModelOptions, StubRequest } from "./types.ts";

export interface DialectRequest {
  method: string;
  path: string;
  headers: Headers;
  body: unknown;
  /** The client went away (`req.signal`). */
  signal: AbortSignal;
  /** Already in the log; the dialect fills `kind`, `prompt`, `main`, `answered`. */
  record: StubRequest;
}

export interface DialectContext {
  script: Script;
  classifier: NonNullable<StubModelOptions["classifier"]>;
  /** Aborted by `stub.stop()`: a hanging request resolves then. */
  stopped: AbortSignal;
}

export interface Dialect {
  /** Must fill `request.record` before its first await: the core reports the record right after the call. */
  handle(request: DialectRequest, context: DialectContext): Response | Promise<Response>;
}

/** A request that is never answered: settles only when the stub stops or the client leaves. */
export function hangUntilStopped(request: DialectRequest, context: DialectContext): Promise<Response> {
  return new Promise((resolve) => {
    const settle = () => resolve(new Response("stub stopped", { status: 503 }));
    if (context.stopped.aborted || request.signal.aborted) return settle();
    context.stopped.addEventListener("abort", settle, { once: true });
    request.signal.addEventListener("abort", settle, { once: true });
  });
}
