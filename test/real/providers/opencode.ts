// The real opencode 1.18.33 against the stub model (Chat Completions, a custom provider in
// OPENCODE_CONFIG_CONTENT): its world and what the shared scenarios expect of it.
import { expect } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createSandbox } from "../../helpers/sandbox.ts";
import { text, write } from "../../stub-model/replies.ts";
import { startStubModel } from "../../stub-model/stub-model.ts";
import { stubOpencodeEnv } from "../real-opencode.ts";
import { drive, type RealWorld } from "../scenarios/drive.ts";
import type { WorkerProfile } from "../scenarios/worker.ts";

/**
 * An opencode start takes 4-9 s, and 22-49 s on 2 loaded cores (docs/providers.md); -p starts one per
 * new worker, so those runs give it --start-timeout 120s (-p's default is 60 s).
 */
export const OPENCODE_START = ["--start-timeout", "120s"];

async function makeOpencodeWorld(bin: string | null): Promise<RealWorld> {
  const stub = await startStubModel({ dialect: "openai-chat" });
  const sb = await createSandbox();
  Object.assign(sb.env, { UMBEL_OPENCODE_BIN: bin ?? "opencode" }, stubOpencodeEnv(stub.url));
  return {
    sb,
    stub,
    async dispose() {
      await sb.dispose();
      await stub.stop();
    },
  };
}

export function opencodeWorkerProfile(bin: string | null): WorkerProfile {
  return {
    label: "opencode",
    bin,
    makeWorld: () => makeOpencodeWorld(bin),
    worker: "ro",
    spawnFlags: ["--provider", "opencode", ...OPENCODE_START],
    timeout: "60s",
    folder: "a fresh folder",
    // opencode 1.18.33 has no trust question (nor any first-run dialog): nothing to answer or say.
    spawned: { state: "ready", dialogs: [] },
    first: {
      prompt: "say hello",
      reply: "hello from the stub",
      evidence: { message: "hello from the stub" },
    },
    async checkFirstTurn(w) {
      expect(readdirSync(w.sb.work)).toEqual([]);
      // opencode's record is its own database; umbel only reads it.
      const read = await drive(() => w, "60s").ok(["read", "ro"]);
      expect(String(read.transcriptPath)).toBe(
        join(w.sb.dir, "home", ".local", "share", "opencode", "opencode.db"),
      );
      expect(String(read.sessionId)).toMatch(/^ses_/);
    },
    multiLine: "first line\n  second, indented\n\n\"dq\" 'sq' $HOME `tick` \\back\n日本語 🎉 end?",
    permission: (w) => {
      const outside = join(w.sb.dir, "outside");
      return {
        reply: write(join(outside, "approved.txt"), "approved", text("done after approval")),
        prompt: "please write it",
        asks: `external_directory: ${outside} (${outside}/*)`,
        screen: "Permission required",
        evidence: { detail: "permission" },
        read: { exact: "done after approval\n" },
        made: { path: join(outside, "approved.txt"), content: "approved" },
      };
    },
    approve: { answer: { option: { number: 1, label: "Allow once" }, keys: ["Enter"] } },
    apiError: { status: 401, evidence: { error: "APIError", message: "stub error 401" }, usableAfter: true },
    leftovers: (w) => [join(w.sb.work, ".opencode")],
  };
}
