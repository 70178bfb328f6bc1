import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type McpPipe, type Reply, startMcpPipe } from "../helpers/mcp-pipe.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";
import { type Random, seeded } from "../helpers/seeded.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * Malformed JSON-RPC through the real server over a pipe (issue 11, item 14), generated from a
 * fixed seed. A line whose id survives gets exactly one reply with that id (an error for every
 * structured mutation); a line that is not JSON gets one reply with id null; notifications get
 * none; and the server still answers afterwards.
 */

type Case = {
  line: string;
  /** Ids that must get exactly one error reply. */
  errors: (string | number)[];
  /** Ids that must get exactly one reply, error or result (random byte flips). */
  replies: (string | number)[];
  /** How many id-null replies the line must get. */
  nulls: number;
};

const j = (value: unknown) => JSON.stringify(value);
const req = (id: string | number, method = "ping", params?: unknown) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params }),
});
const errorCase = (value: unknown, ...ids: (string | number)[]): Case => ({
  line: typeof value === "string" ? value : j(value),
  errors: ids,
  replies: [],
  nulls: ids.length === 0 ? 1 : 0,
});

/** Structured mutations: each is malformed in one known way. */
function structured(r: Random, n: number): Case[] {
  const id = (k: number) => `s${n}-${k}`;
  const junk = [5, "x", true, null, [1], { a: 1 }];
  const cases: Case[] = [];
  for (let k = 0; k < 4; k++) {
    cases.push(
      errorCase(
        req(id(k), r.pick(["ping", "tools/list", "tools/call"]), r.pick(["x", 5, true, null])),
        id(k),
      ),
    );
  }
  cases.push(errorCase(req(id(4), "ping", [1, 2]), id(4)));
  cases.push(errorCase(req(n * 10 + 0.5), n * 10 + 0.5)); // a fractional id is echoed
  cases.push(errorCase(req(r.pick([true, false, null]) as never))); // an id that cannot be echoed: null
  cases.push(errorCase({ ...req(id(5)), method: r.pick([123, null, ["ping"], { m: 1 }, false]) }, id(5)));
  cases.push(errorCase({ ...req(id(6)), jsonrpc: r.pick(["1.0", 2, null, "2.0 "]) }, id(6)));
  cases.push(errorCase({ id: id(7), method: "ping" }, id(7)));
  cases.push(
    errorCase({ ...req(id(8)), [r.pick(["extra", "params2", "ID", "result"])]: r.pick(junk) }, id(8)),
  );
  cases.push(errorCase(j(req(id(9))) + r.pick(["", " ", "\t"]) + j(req(id(10))), id(9), id(10)));
  cases.push(errorCase([req(id(11)), req(id(12), "tools/list")], id(11), id(12)));
  cases.push(errorCase(req(id(13), "tools/call"), id(13)));
  cases.push(
    errorCase(
      req(id(14), "tools/call", r.pick([{}, { name: 5 }, { name: "umbel_help", arguments: "x" }])),
      id(14),
    ),
  );
  cases.push(errorCase(req(id(15), "initialize", r.pick([{}, { protocolVersion: 5 }])), id(15)));
  cases.push(errorCase(req(id(16), "tools/list", { cursor: r.pick([5, true, {}]) }), id(16)));
  cases.push(errorCase(req(id(17), "tools/call", { name: "umbel_help", task: { ttl: 1 } }), id(17)));
  cases.push(errorCase(req(id(18), `no/such/method-${n}`), id(18))); // the SDK: -32601
  cases.push(errorCase({ jsonrpc: "2.0", id: id(19) }, id(19)));
  cases.push(errorCase(r.pick(["{}", "[]", "5", '"x"', "null", "true"])));
  cases.push(errorCase(`{${"x".repeat(1000 + r.int(50_000))}`));
  return cases;
}

/** Random damage to a valid request: a flipped byte, a cut, a duplicated key, a doubled line. */
function damaged(r: Random, n: number): Case {
  const id = `d${n}-${r.int(1e9)}`;
  const base = j(r.pick([req(id), req(id, "tools/list"), req(id, "tools/call", { name: "umbel_help" })]));
  const kind = r.int(3);
  const line =
    kind === 0
      ? ((i) => base.slice(0, i) + String.fromCharCode(32 + r.int(95)) + base.slice(i + 1))(
          r.int(base.length),
        )
      : kind === 1
        ? base.slice(0, 1 + r.int(base.length - 2))
        : base.replace('"method":', `"method":"ping","method":`);
  return expectFor(line);
}

/** What a damaged line must get, from what JSON.parse makes of it (never from the guard itself). */
function expectFor(line: string): Case {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { line, errors: [], replies: [], nulls: 1 };
  }
  const object = typeof value === "object" && value !== null && !Array.isArray(value);
  const id = object ? (value as { id?: unknown }).id : undefined;
  if (typeof id === "string" || (typeof id === "number" && Number.isFinite(id)))
    return { line, errors: [], replies: [id], nulls: 0 };
  const notification =
    object && !("id" in (value as object)) && typeof (value as { method?: unknown }).method === "string";
  return { line, errors: [], replies: [], nulls: notification ? 0 : 1 };
}

const r = seeded(20250311);
const CASES: Case[] = [
  ...Array.from({ length: 5 }, (_, n) => structured(r, n)).flat(),
  ...Array.from({ length: 120 }, (_, n) => damaged(r, n)),
  ...["notifications/cancelled", "notifications/progress", "notifications/initialized"].map(
    (method) =>
      ({ line: j({ jsonrpc: "2.0", method, params: "x" }), errors: [], replies: [], nulls: 0 }) as Case,
  ),
];

let sb: Sandbox;
let mcp: McpPipe;
beforeAll(async () => {
  sb = await createSandbox();
  mcp = startMcpPipe(sb);
  const init = await mcp.request("init", "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "fuzz", version: "0" },
  });
  expect(init?.result).toBeDefined();
  mcp.write(`${j({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
});
afterAll(async () => {
  expect(await mcp.close()).toBe(0);
  await sb.dispose();
});

test(`${CASES.length} malformed messages: one reply per id, id null for non-JSON, then a working server`, async () => {
  expect(CASES.filter((c) => c.errors.length > 0 || c.replies.length > 0).length).toBeGreaterThanOrEqual(100);
  const before = mcp.replies.length;
  for (const c of CASES) mcp.write(`${c.line}\n`);
  const ids = CASES.flatMap((c) => [...c.errors, ...c.replies]);
  const nulls = CASES.reduce((sum, c) => sum + c.nulls, 0);
  const got = () => mcp.replies.slice(before);
  const of = (id: string | number) => got().filter((reply) => reply.id === id);
  await mcp.until(
    () => ids.every((id) => of(id).length > 0) && got().filter((x) => x.id === null).length >= nulls,
  );
  // The server still answers, and every reply to the lines above was written before this one.
  expect(await mcp.request("after", "ping")).toEqual({ jsonrpc: "2.0", id: "after", result: {} });
  expect(mcp.garbage).toEqual([]);
  for (const c of CASES) {
    for (const id of c.errors) {
      expect({ line: c.line.slice(0, 200), id, replies: of(id).length }).toEqual({
        line: c.line.slice(0, 200),
        id,
        replies: 1,
      });
      expectOneLineError(of(id)[0]);
    }
    for (const id of c.replies)
      expect({ line: c.line.slice(0, 200), id, replies: of(id).length }).toEqual({
        line: c.line.slice(0, 200),
        id,
        replies: 1,
      });
  }
  const nullReplies = got().filter((x) => x.id === null);
  expect(nullReplies).toHaveLength(nulls);
  for (const reply of nullReplies) expectOneLineError(reply);
  const tools = await mcp.request("tools", "tools/list");
  expect((tools?.result as { tools?: unknown[] } | undefined)?.tools?.length).toBeGreaterThan(10);
}, 120_000);

function expectOneLineError(reply: Reply | undefined) {
  expect(reply?.error?.code).toBeOneOf([-32700, -32600, -32601, -32602]);
  expect(reply?.error?.message).not.toContain("\n");
  expect(reply?.error?.message.length).toBeLessThan(300);
}
