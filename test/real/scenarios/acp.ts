// `umbel acp` with a real CLI behind it, driven by the real ACP client acpx (pinned,
// scripts/setup-real-acpx.ts; docs/acp.md, "acpx", says how it runs), written once and run over
// each provider: a tool call's tool_call and completed tool_call_update, a permission request
// approved and denied through acpx, a cancel by SIGINT, and a saved session (session/load of a
// closed worker, `acpx cancel`, a next prompt on the same worker). acpx's `--format json` prints the
// JSON-RPC stream both ways; each test reads it. Each test has a world of its own: a state root, a
// tmux server, the CLI's home (also acpx's HOME, where it keeps ~/.acpx) and a stub.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, UMBEL } from "../../helpers/sandbox.ts";
import {
  type AcpxRun,
  answerTo,
  type RpcMessage,
  removeAcpxSockets,
  startAcpx,
  updates,
} from "../real-acpx.ts";
import { type RealWorld, timing } from "./drive.ts";

export type AcpProfile<W extends RealWorld = RealWorld> = {
  label: string;
  /** The CLI and acpx; a null one skips the tests (real-bin.ts, real-acpx.ts). */
  bin: string | null;
  acpx: string | null;
  makeWorld(): Promise<W>;
  /** `umbel acp`'s flags: the provider, the names of its keys, a start timeout. */
  face: string[];
  /** A prompt whose reply is a shell tool call running `command` without asking. */
  tool: { prompt: string; command: string };
  /** The face's flags that make the CLI ask; a call approved makes `made`, a denied one not `absent`. */
  permission: {
    flags: string[];
    approve: { prompt: string; made: string; content?: string };
    deny: { prompt: string; absent: string };
  };
};

type World<W extends RealWorld> = W & { acpx(args: string[]): AcpxRun };

export function acpScenarios<W extends RealWorld>(p: AcpProfile<W>): void {
  const skip = p.bin === null || p.acpx === null;
  /** The agent command acpx starts: umbel's ACP face on the CLI. */
  const agent = (...flags: string[]) => ["--agent", [UMBEL, "acp", ...p.face, ...flags].join(" ")];
  /** A world for one test; when the test fails, every acpx run's stream is printed. */
  async function withWorld(body: (w: World<W>) => Promise<void>): Promise<void> {
    const base = await p.makeWorld();
    const runs: { args: string[]; run: AcpxRun }[] = [];
    const w = Object.assign(base, {
      acpx(args: string[]) {
        const run = startAcpx(p.acpx ?? "acpx", base.sb.work, base.sb.env, args);
        runs.push({ args, run });
        return run;
      },
    });
    try {
      await body(w);
    } catch (error) {
      for (const { args, run } of runs) {
        const r = await run.done;
        console.log(
          `acpx ${args.filter((a) => !a.includes(UMBEL)).join(" ")} → exit ${r.code}\n${transcript(r)}`,
        );
      }
      throw error;
    } finally {
      await removeAcpxSockets(base.sb.env.HOME ?? "");
      await base.dispose();
    }
  }

  test.skipIf(skip)(
    `${p.label}: exec, a tool call's tool_call and completed tool_call_update; stdin closed → the worker is killed`,
    async () => {
      await withWorld(async (w) => {
        const started = performance.now();
        const r = await finished(w.acpx([...agent(), "exec", p.tool.prompt]), 0);
        timing(`${p.label}: acpx exec, one tool call (a start included)`, performance.now() - started);
        const worker = sessionOf(r.messages);
        const [call] = updates(r.messages, "tool_call");
        // The CLI's own tool-use id. (No asymmetric matcher in toMatchObject here: bun 1.4.5 writes
        // the matcher into the received object.)
        const id = call?.toolCallId;
        expect(typeof id).toBe("string");
        expect(call).toMatchObject({ kind: "execute", status: "in_progress" });
        expect(JSON.stringify(call?.rawInput)).toContain(p.tool.command);
        const done = updates(r.messages, "tool_call_update").find((u) => u.toolCallId === id);
        expect(done).toMatchObject({ status: "completed" });
        const [content] = (done?.content ?? []) as {
          type: string;
          content: { type: string; text: string };
        }[];
        expect(content).toMatchObject({ type: "content", content: { type: "text" } });
        expect(content?.content.text).toContain("hi-from-bash");
        // The stub answers a tool result with its echo: the turn's last text.
        expect(said(r.messages)).toContain("STUB-TOOL-RESULT is_error=false");
        expect(answerTo(r.messages, "session/prompt")?.result).toMatchObject({ stopReason: "end_turn" });
        // acpx ended the face's stdin (SIGTERM ~100 ms later): the worker it spawned is killed, its
        // tombstone kept.
        expect(await workerState(w, worker)).toBe("killed");
      });
    },
  );

  test.skipIf(skip)(
    `${p.label}: a permission request approved through acpx (--approve-all): the command ran`,
    async () => {
      await withWorld(async (w) => {
        const a = p.permission.approve;
        const r = await finished(
          w.acpx(["--approve-all", ...agent(...p.permission.flags), "exec", a.prompt]),
          0,
        );
        const asked = r.messages.find((m) => m.method === "session/request_permission");
        expect(asked?.params).toMatchObject({
          sessionId: sessionOf(r.messages),
          toolCall: { kind: "execute", status: "pending" },
        });
        const toolCall = asked?.params?.toolCall as { toolCallId?: unknown } | undefined;
        expect(typeof toolCall?.toolCallId).toBe("string");
        const options = (asked?.params?.options ?? []) as { optionId: string; kind: string }[];
        expect(options).toContainEqual(expect.objectContaining({ optionId: "allow", kind: "allow_once" }));
        expect(options).toContainEqual(expect.objectContaining({ optionId: "deny", kind: "reject_once" }));
        expect(answerTo(r.messages, "session/request_permission")?.result).toEqual({
          outcome: { outcome: "selected", optionId: "allow" },
        });
        const made = join(w.sb.work, a.made);
        expect(existsSync(made)).toBe(true);
        if (a.content !== undefined) expect(readFileSync(made, "utf8")).toBe(a.content);
        expect(updates(r.messages, "tool_call_update")).toContainEqual(
          expect.objectContaining({ status: "completed" }),
        );
        expect(answerTo(r.messages, "session/prompt")?.result).toMatchObject({ stopReason: "end_turn" });
      });
    },
  );

  test.skipIf(skip)(
    `${p.label}: a permission request denied through acpx (--deny-all): the command did not run; acpx exits 5`,
    async () => {
      await withWorld(async (w) => {
        const d = p.permission.deny;
        // acpx's exit 5: every permission request of the run was denied.
        const r = await finished(
          w.acpx(["--deny-all", ...agent(...p.permission.flags), "exec", d.prompt]),
          5,
        );
        expect(answerTo(r.messages, "session/request_permission")?.result).toEqual({
          outcome: { outcome: "selected", optionId: "deny" },
        });
        expect(existsSync(join(w.sb.work, d.absent))).toBe(false);
        // The turn ends with the CLI's own reaction to a denial: the prompt is answered, not an error,
        // and `cancelled` is only for a cancel the client asked for (core/acp/stop.ts).
        expect(answerTo(r.messages, "session/prompt")?.result).toEqual({ stopReason: "end_turn" });
      });
    },
  );

  test.skipIf(skip)(
    `${p.label}: exec cancelled by SIGINT (acpx sends session/cancel): the prompt answers cancelled`,
    async () => {
      await withWorld(async (w) => {
        const run = w.acpx([...agent(), "exec", "stub:hang"]);
        await hanging(w, run);
        const started = performance.now();
        process.kill(run.pid, "SIGINT");
        // acpx waits 2.5 s for the cancelled answer, then closes the agent; exit 0 after an answer.
        const r = await finished(run, 0);
        timing(`${p.label}: SIGINT → acpx exited`, performance.now() - started);
        expect(r.messages.some((m) => m.method === "session/cancel")).toBe(true);
        expect(answerTo(r.messages, "session/prompt")?.result).toEqual({ stopReason: "cancelled" });
      });
    },
  );

  test.skipIf(skip)(
    `${p.label}: a saved session: its worker killed when acpx's queue owner ends, then resumed; acpx cancel; a next prompt; sessions close`,
    async () => {
      await withWorld(async (w) => {
        // A prompt leaves acpx's queue owner (and the face) running for --ttl idle seconds.
        const briefly = ["--ttl", "1", ...agent()];
        const owner = ["--ttl", "30", ...agent()];
        try {
          // `sessions new` prints acpx's record (the agent's sessionId as acpxSessionId), not the stream.
          const created = await finished(w.acpx([...briefly, "sessions", "new"]), 0);
          const [record] = created.messages as { action?: string; acpxSessionId?: string }[];
          expect(record).toMatchObject({ action: "session_ensured", created: true });
          const made = record?.acpxSessionId ?? "";
          expect(made).toMatch(/^acp-[0-9a-f]{8}$/);
          // That acpx exited: the worker it spawned is killed (tombstone kept).
          expect(await workerState(w, made)).toBe("killed");

          // The first prompt: acpx loads the session first (a worker without a conversation: the
          // face may refuse, then acpx makes a new session and hides the failed load).
          const first = await finished(w.acpx([...briefly, "prompt", "first prompt"]), 0);
          expect(answerTo(first.messages, "session/prompt")?.result).toMatchObject({
            stopReason: "end_turn",
          });
          const worker = String(first.messages.find((m) => m.method === "session/prompt")?.params?.sessionId);
          console.log(
            `[${p.label} saved session] sessions new made ${made}; the first prompt ran on ${worker}`,
          );
          // The owner's TTL ends the face: its worker is killed, its conversation kept.
          await eventually(
            async () => (await workerState(w, worker)) === "killed",
            20_000,
            "the worker killed",
          );

          // A new owner reconnects to the killed worker: session/resume (the face advertises it; acpx
          // prefers it to session/load) starts its CLI again on its conversation, in its name.
          const second = await finished(w.acpx([...owner, "prompt", "second prompt"]), 0);
          const reconnect = second.messages.find(
            (m) => m.method === "session/resume" || m.method === "session/load",
          );
          expect(reconnect?.params).toMatchObject({ sessionId: worker });
          expect(answerTo(second.messages, String(reconnect?.method))?.result).toBeDefined();
          expect(second.messages.find((m) => m.method === "session/prompt")?.params?.sessionId).toBe(worker);
          expect(answerTo(second.messages, "session/prompt")?.result).toMatchObject({
            stopReason: "end_turn",
          });
          expect(["killed", "dead", undefined]).not.toContain(await workerState(w, worker));
          // The resumed CLI sent the earlier turn with the new prompt.
          expect(JSON.stringify(w.stub.mainRequests().at(-1)?.body)).toContain("first prompt");

          const running = w.acpx([...owner, "prompt", "stub:hang"]);
          await hanging(w, running);
          const cancelled = performance.now();
          const cancel = await finished(w.acpx([...owner, "cancel"]), 0);
          expect(cancel.messages as unknown[]).toEqual([
            expect.objectContaining({ action: "cancel_result", cancelled: true }),
          ]);
          const hung = await finished(running, 0);
          timing(`${p.label}: acpx cancel → the prompt answered`, performance.now() - cancelled);
          expect(answerTo(hung.messages, "session/prompt")?.result).toEqual({ stopReason: "cancelled" });

          // The same worker takes the next prompt.
          const next = await finished(w.acpx([...owner, "prompt", "after the cancel"]), 0);
          expect(next.messages.find((m) => m.method === "session/prompt")?.params?.sessionId).toBe(worker);
          expect(answerTo(next.messages, "session/prompt")?.result).toMatchObject({ stopReason: "end_turn" });
          expect(said(next.messages)).toContain("STUB-REPLY");
          expect(w.stub.mainRequests().at(-1)?.prompt).toBe("after the cancel");

          // sessions close: acpx sends the owner's agent session/close, which kills the worker.
          await finished(w.acpx([...owner, "sessions", "close"]), 0);
          await eventually(
            async () => (await workerState(w, worker)) === "killed",
            10_000,
            "the worker killed",
          );
        } finally {
          await w.acpx([...owner, "sessions", "close"]).done;
        }
      });
    },
  );
}

/** Runs acpx to its end, which must be exit `code` (else its stderr and stream are the failure's). */
async function finished(run: AcpxRun, code: number) {
  const r = await run.done;
  expect({ code: r.code, ...(r.code === code ? {} : { acpx: transcript(r) }) }).toEqual({ code });
  return r;
}

/** Until the stub sees the hanging prompt; fails at once when acpx exits first. */
async function hanging(w: RealWorld, run: AcpxRun): Promise<void> {
  const exited = run.done.then((r) => {
    throw new Error(`acpx exited ${r.code} before the prompt reached the stub\n${transcript(r)}`);
  });
  await Promise.race([w.stub.waitForRequest((q) => q.main?.prompt === "stub:hang", 60_000), exited]);
}

function transcript(r: { stderr: string; messages: RpcMessage[] }): string {
  return `stderr: ${r.stderr || "(empty)"}\nstream:\n${r.messages.map((m) => JSON.stringify(m)).join("\n")}`;
}

/** The worker a session/new answered (the ACP sessionId IS the worker's name). */
function sessionOf(messages: RpcMessage[]): string {
  const made = answerTo(messages, "session/new")?.result as { sessionId?: string } | undefined;
  expect(made?.sessionId).toMatch(/^acp-[0-9a-f]{8}$/);
  return made?.sessionId ?? "";
}

/** The text of the agent_message_chunk updates, joined. */
function said(messages: RpcMessage[]): string {
  return updates(messages, "agent_message_chunk")
    .map((u) => (u.content as { text?: string } | undefined)?.text ?? "")
    .join("");
}

async function workerState(w: RealWorld, name: string): Promise<string | undefined> {
  const rows = JSON.parse((await w.sb.umbel(["ls", "--json", "--local"])).stdout) as {
    name: string;
    state: string;
  }[];
  return rows.find((row) => row.name === name)?.state;
}
