// The REAL Claude Code TUI behind `dist/umbel acp`, driven by the real ACP client acpx (pinned,
// scripts/setup-real-acpx.ts) against the stub model on loopback: what an editor or an agent
// orchestrator speaking ACP sees. acpx's `--format json` prints the JSON-RPC stream both ways; each
// test reads it. Each test has its own world: a state root, a tmux server, claude's seeded home
// (also acpx's HOME, where it keeps ~/.acpx) and a stub. docs/acp.md, "acpx", says how acpx runs.
import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UMBEL } from "../helpers/sandbox.ts";
import { CLAUDE_KEY_FLAGS, type ClaudeWorld, makeClaudeWorld } from "./providers/claude.ts";
import {
  type AcpxRun,
  answerTo,
  type RpcMessage,
  removeAcpxSockets,
  requireRealAcpx,
  startAcpx,
  updates,
} from "./real-acpx.ts";
import { requireRealClaude } from "./real-bin.ts";
import { timing } from "./scenarios/drive.ts";

// A claude start (trust dialog answered) and a turn take seconds; bun's default is 5 s, and a
// preload's setDefaultTimeout reaches only the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(90_000);

const claude = requireRealClaude("test/real/acp-claude.test.ts");
const acpx = requireRealAcpx("test/real/acp-claude.test.ts");
const skip = claude === null || acpx === null;

/** The agent command acpx starts: umbel's ACP face on claude (the key reaches the worker by name). */
const agent = (...flags: string[]) => [
  "--agent",
  [UMBEL, "acp", "--provider", "claude", ...CLAUDE_KEY_FLAGS, ...flags].join(" "),
];

type World = ClaudeWorld & { acpx(args: string[]): AcpxRun };

async function withWorld(body: (w: World) => Promise<void>): Promise<void> {
  const base = await makeClaudeWorld(claude);
  const w: World = { ...base, acpx: (args) => startAcpx(acpx ?? "acpx", base.sb.work, base.sb.env, args) };
  try {
    await body(w);
  } finally {
    await removeAcpxSockets(base.sb.env.HOME ?? "");
    await base.dispose();
  }
}

/** Runs acpx to its end; the stream is printed when it is not the exit code `code`. */
async function finished(run: AcpxRun, code: number) {
  const r = await run.done;
  if (r.code !== code) {
    console.log(
      `acpx exit ${r.code} (expected ${code})\nstderr: ${r.stderr}\nstream:\n${r.messages.map((m) => JSON.stringify(m)).join("\n")}`,
    );
  }
  expect(r.code).toBe(code);
  return r;
}

/** Until the stub sees the hanging prompt; fails at once when acpx exits first (its stream printed). */
async function hanging(w: World, run: AcpxRun): Promise<void> {
  const exited = run.done.then((r) => {
    throw new Error(
      `acpx exited ${r.code} before the prompt reached the stub\nstderr: ${r.stderr}\n${r.messages.map((m) => JSON.stringify(m)).join("\n")}`,
    );
  });
  await Promise.race([w.stub.waitForRequest((q) => q.main?.prompt === "stub:hang", 60_000), exited]);
}

/** The worker a session/new answered (the ACP sessionId IS the worker's name). */
function sessionOf(messages: RpcMessage[]): string {
  const made = answerTo(messages, "session/new")?.result as { sessionId?: string } | undefined;
  expect(made?.sessionId).toMatch(/^acp-[0-9a-f]{8}$/);
  return made?.sessionId ?? "";
}

async function workerState(w: World, name: string): Promise<string | undefined> {
  const rows = JSON.parse((await w.sb.umbel(["ls", "--json", "--local"])).stdout) as {
    name: string;
    state: string;
  }[];
  return rows.find((row) => row.name === name)?.state;
}

test.skipIf(skip)(
  "exec: a tool call's tool_call and completed tool_call_update; stdin closed → the worker is killed",
  async () => {
    await withWorld(async (w) => {
      const started = performance.now();
      const r = await finished(w.acpx([...agent(), "exec", "stub:bash echo hi-from-bash"]), 0);
      timing("acpx exec, one tool call (a claude start included)", performance.now() - started);
      const worker = sessionOf(r.messages);
      const [call] = updates(r.messages, "tool_call");
      expect(call).toMatchObject({
        toolCallId: expect.stringMatching(/^toolu_stub_/),
        kind: "execute",
        status: "in_progress",
        rawInput: { command: "echo hi-from-bash" },
      });
      const done = updates(r.messages, "tool_call_update").find((u) => u.toolCallId === call?.toolCallId);
      expect(done).toMatchObject({ status: "completed" });
      const [content] = (done?.content ?? []) as { type: string; content: { type: string; text: string } }[];
      expect(content).toMatchObject({ type: "content", content: { type: "text" } });
      expect(content?.content.text).toContain("hi-from-bash");
      // The stub answers the tool result with its echo: the turn's last text.
      const said = updates(r.messages, "agent_message_chunk").map(
        (u) => (u.content as { text: string }).text,
      );
      expect(said.join("")).toContain("STUB-TOOL-RESULT is_error=false");
      expect(answerTo(r.messages, "session/prompt")?.result).toMatchObject({ stopReason: "end_turn" });
      // acpx ended the face's stdin (then SIGTERM after ~100 ms): the worker it spawned is killed,
      // its tombstone kept.
      expect(await workerState(w, worker)).toBe("dead");
    });
  },
);

test.skipIf(skip)("a permission request approved through acpx (--approve-all): the command ran", async () => {
  await withWorld(async (w) => {
    const r = await finished(
      w.acpx([
        "--approve-all",
        ...agent("--permission-mode", "manual"),
        "exec",
        "stub:bash echo approved > approved.txt",
      ]),
      0,
    );
    const asked = r.messages.find((m) => m.method === "session/request_permission");
    expect(asked?.params).toMatchObject({
      sessionId: sessionOf(r.messages),
      toolCall: { toolCallId: expect.stringMatching(/^toolu_stub_/), kind: "execute", status: "pending" },
    });
    const options = (asked?.params?.options ?? []) as { optionId: string; kind: string }[];
    expect(options).toContainEqual(expect.objectContaining({ optionId: "allow", kind: "allow_once" }));
    expect(options).toContainEqual(expect.objectContaining({ optionId: "deny", kind: "reject_once" }));
    expect(answerTo(r.messages, "session/request_permission")?.result).toEqual({
      outcome: { outcome: "selected", optionId: "allow" },
    });
    expect(readFileSync(join(w.sb.work, "approved.txt"), "utf8")).toBe("approved\n");
    expect(updates(r.messages, "tool_call_update")).toContainEqual(
      expect.objectContaining({ status: "completed" }),
    );
    expect(answerTo(r.messages, "session/prompt")?.result).toMatchObject({ stopReason: "end_turn" });
  });
});

test.skipIf(skip)(
  "a permission request denied through acpx (--deny-all): the command did not run; acpx exits 5",
  async () => {
    await withWorld(async (w) => {
      // acpx's exit 5: every permission request of the run was denied.
      const r = await finished(
        w.acpx([
          "--deny-all",
          ...agent("--permission-mode", "manual"),
          "exec",
          "stub:bash echo no > denied.txt",
        ]),
        5,
      );
      expect(answerTo(r.messages, "session/request_permission")?.result).toEqual({
        outcome: { outcome: "selected", optionId: "deny" },
      });
      expect(existsSync(join(w.sb.work, "denied.txt"))).toBe(false);
      // The turn ends with claude's own reaction to a denial (the prompt is answered, not an error).
      const answer = answerTo(r.messages, "session/prompt");
      expect(answer?.error).toBeUndefined();
      console.log(`[deny] stopReason ${String(answer?.result?.stopReason)}`);
      expect(["end_turn", "cancelled"]).toContain(String(answer?.result?.stopReason));
    });
  },
);

test.skipIf(skip)(
  "exec cancelled by SIGINT (acpx sends session/cancel): the prompt answers cancelled",
  async () => {
    await withWorld(async (w) => {
      const run = w.acpx([...agent(), "exec", "stub:hang"]);
      await hanging(w, run);
      const started = performance.now();
      process.kill(run.pid, "SIGINT");
      // acpx waits 2.5 s for the cancelled answer before it closes the agent, exit 0 either way.
      const r = await finished(run, 0);
      timing("SIGINT → acpx exited", performance.now() - started);
      expect(r.messages.some((m) => m.method === "session/cancel")).toBe(true);
      expect(answerTo(r.messages, "session/prompt")?.result).toEqual({ stopReason: "cancelled" });
    });
  },
);

test.skipIf(skip)(
  "a saved session: sessions new, prompt (session/load of the closed worker), acpx cancel, a next prompt, sessions close",
  async () => {
    await withWorld(async (w) => {
      // The queue owner acpx leaves behind for --ttl seconds after a prompt; sessions close ends it.
      const owner = ["--ttl", "30", ...agent()];
      try {
        // `sessions new` prints acpx's own record (the agent's sessionId as acpxSessionId), not the stream.
        const created = await finished(w.acpx([...owner, "sessions", "new"]), 0);
        const [record] = created.messages as { action?: string; acpxSessionId?: string }[];
        expect(record).toMatchObject({ action: "session_ensured", created: true });
        const worker = record?.acpxSessionId ?? "";
        expect(worker).toMatch(/^acp-[0-9a-f]{8}$/);
        // That acpx exited: the worker it spawned is dead, its conversation on record.
        expect(await workerState(w, worker)).toBe("dead");

        const first = await finished(w.acpx([...owner, "prompt", "first prompt"]), 0);
        const load = first.messages.find((m) => m.method === "session/load");
        expect(load?.params).toMatchObject({ sessionId: worker });
        expect(answerTo(first.messages, "session/load")?.error).toBeUndefined();
        expect(answerTo(first.messages, "session/prompt")?.result).toMatchObject({ stopReason: "end_turn" });
        expect(await workerState(w, worker)).not.toBe("dead");

        const running = w.acpx([...owner, "prompt", "stub:hang"]);
        await hanging(w, running);
        const cancel = await finished(w.acpx([...owner, "cancel"]), 0);
        expect(cancel.messages as unknown[]).toEqual([
          expect.objectContaining({ action: "cancel_result", cancelled: true }),
        ]);
        const cancelled = await finished(running, 0);
        expect(answerTo(cancelled.messages, "session/prompt")?.result).toEqual({ stopReason: "cancelled" });

        // The same worker takes the next prompt.
        const next = await finished(w.acpx([...owner, "prompt", "after the cancel"]), 0);
        expect(answerTo(next.messages, "session/prompt")?.result).toMatchObject({ stopReason: "end_turn" });
        const said = updates(next.messages, "agent_message_chunk").map(
          (u) => (u.content as { text: string }).text,
        );
        expect(said.join("")).toContain("STUB-REPLY");
        expect(w.stub.mainRequests().at(-1)?.prompt).toBe("after the cancel");
      } finally {
        await w.acpx([...owner, "sessions", "close"]).done;
      }
    });
  },
);
