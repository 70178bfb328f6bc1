// The REAL Claude Code TUI (the pinned binary from `npm run setup:real`) driven through the built
// dist/umbel against the stub model on loopback: the proof that umbel works with the vendor's CLI
// as it ships, not only with our fake. The shared one-worker scenarios (scenarios/worker.ts, with
// claude's profile in providers/claude.ts), then what only claude has: `/` and `!` prompts, -p
// against claude -p, a background subagent. Timing figures are printed, never asserted.
import { expect, setDefaultTimeout, test } from "bun:test";
import { renderPromptEcho } from "../stub-model/digest.ts";
import { claudeEnv } from "./claude-home.ts";
import {
  CLAUDE_API_KEY,
  CLAUDE_KEY_FLAGS,
  claudeWorkerProfile,
  makeClaudeWorld,
} from "./providers/claude.ts";
import { requireRealClaude } from "./real-bin.ts";
import { drive, timing } from "./scenarios/drive.ts";
import { workerScenarios } from "./scenarios/worker.ts";

// Real workers take seconds; bun's default is 5 s, and a preload's setDefaultTimeout reaches only
// the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

const claude = requireRealClaude("test/real/claude.test.ts");

workerScenarios(claudeWorkerProfile(claude), {
  live({ world, ok, turn }) {
    test("prompts starting with / and ! reach the model as text, not as commands", async () => {
      // umbel pads `/…` until claude folds the paste (a leading space would not stop `/exit`) and
      // puts a space before `!` (shell mode otherwise).
      for (const [prompt, delivered] of [
        ["/exit please", "/exit please\n\n\n"],
        ["/help me", "/help me\n\n\n"],
        ["!echo bang", " !echo bang"],
      ]) {
        const t = await turn("talk", prompt ?? "");
        expect(t.outcome.reason).toBe("stop");
        expect(world().stub.mainRequests().at(-1)?.prompt).toBe(delivered);
      }
      expect((await ok(["status", "talk"])).state).toBe("idle");
    });
  },
  after() {
    test("umbel -p (text, json, stdin) answers like claude -p on the same stub; json keys compared", async () => {
      const w = await makeClaudeWorld(claude);
      try {
        let started = performance.now();
        const plain = await w.sb.umbel(["-p", "print me", ...CLAUDE_KEY_FLAGS]);
        timing("umbel -p, cold (trusted for its session only)", performance.now() - started);
        expect(plain.stdout).toBe(`${renderPromptEcho("print me")}\n`);
        expect(plain.code).toBe(0);
        const piped = await w.sb.umbel(["-p", ...CLAUDE_KEY_FLAGS], { stdin: "from stdin\n" });
        expect(piped.stdout).toBe(`${renderPromptEcho("from stdin")}\n`);

        started = performance.now();
        const ours = await w.sb.umbel(["-p", "same prompt", "--output-format", "json", ...CLAUDE_KEY_FLAGS]);
        const umbelMs = performance.now() - started;
        started = performance.now();
        const theirs = Bun.spawn([claude ?? "claude", "-p", "same prompt", "--output-format", "json"], {
          cwd: w.sb.work,
          env: claudeEnv(w.home, { baseUrl: w.stub.url, apiKey: CLAUDE_API_KEY }),
          stdout: "pipe",
          stderr: "pipe",
        });
        const theirOut = await new Response(theirs.stdout).text();
        expect(await theirs.exited).toBe(0);
        timing("umbel -p (json)", umbelMs);
        timing("claude -p (json), same stub", performance.now() - started);

        const a = JSON.parse(ours.stdout) as Record<string, unknown>;
        const b = JSON.parse(theirOut) as Record<string, unknown>;
        // umbel's keys are claude's plus its own `umbel` object, each with claude's JSON type (or null
        // where umbel cannot know the value); docs/providers.md lists the keys that differ.
        const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
        const shared = Object.keys(a).filter((key) => key !== "umbel");
        expect(shared.filter((key) => !(key in b))).toEqual([]);
        for (const key of shared) {
          if (a[key] !== null) expect([key, kind(a[key])]).toEqual([key, kind(b[key])]);
        }
        for (const key of ["type", "subtype", "is_error", "result"]) expect(a[key]).toEqual(b[key]);
        const missing = Object.keys(b).filter((key) => !(key in a));
        const unknown = shared.filter((key) => a[key] === null && b[key] !== null);
        console.log(
          `[keys] claude -p only: ${missing.join(" ") || "none"}; null in umbel: ${unknown.join(" ") || "none"}`,
        );
        expect((await w.sb.umbel(["ls"])).stdout).not.toContain("p-");
      } finally {
        await w.dispose();
      }
    });

    test("a background subagent: wait returns only after the turn that takes its report", async () => {
      const w = await makeClaudeWorld(claude);
      try {
        const d = drive(() => w, "30s");
        await d.ok(["spawn", "sub", ...CLAUDE_KEY_FLAGS]);
        const t = await d.turn("sub", "stub:task look around");
        expect(t.outcome.reason).toBe("stop");
        const events = (await w.sb.umbel(["logs", "sub", "--json"])).stdout
          .trim()
          .split("\n")
          .map(
            (line) => JSON.parse(line) as { index: number; event: string; payload: Record<string, unknown> },
          );
        const stops = events.filter((e) => e.event === "Stop");
        const subagentStop = events.findIndex((e) => e.event === "SubagentStop");
        expect(subagentStop).toBeGreaterThan(0);
        // The answer is the last Stop's (after the hand-back), not the first one's.
        expect(stops.length).toBeGreaterThanOrEqual(2);
        expect(t.outcome.evidence.message).toBe(stops.at(-1)?.payload.last_assistant_message);
        expect(t.outcome.evidence.message).toBe("STUB-NOTICE agent-message");
        const firstStopTasks = JSON.stringify(stops[0]?.payload.background_tasks);
        console.log(`[subagent] first Stop's background_tasks: ${firstStopTasks}`);
        expect((await d.ok(["status", "sub"])).state).toBe("idle");
      } finally {
        await w.dispose();
      }
    });
  },
});
