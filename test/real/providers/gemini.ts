// The real gemini-cli 0.61.0 against the stub model (GOOGLE_GEMINI_BASE_URL and a stub API key):
// its world and what the shared scenarios expect of it.
import { join } from "node:path";
import { STUB_KEY } from "../../helpers/gemini-world.ts";
import { createSandbox } from "../../helpers/sandbox.ts";
import { bash, text } from "../../stub-model/replies.ts";
import { startStubModel } from "../../stub-model/stub-model.ts";
import type { RealWorld } from "../scenarios/drive.ts";
import type { WorkerProfile } from "../scenarios/worker.ts";

export const GEMINI_SPAWN_FLAGS = ["--provider", "gemini", "--start-timeout", "60s"];

/** untrusted: nothing marks the work folder as trusted (umbel's GEMINI_CLI_TRUST_WORKSPACE must). */
export async function makeGeminiWorld(bin: string | null): Promise<RealWorld> {
  const stub = await startStubModel({ dialect: "gemini" });
  const sb = await createSandbox({ untrusted: true });
  Object.assign(sb.env, {
    UMBEL_GEMINI_BIN: bin ?? "gemini",
    GEMINI_API_KEY: STUB_KEY,
    GOOGLE_GEMINI_BASE_URL: stub.url,
  });
  return {
    sb,
    stub,
    async dispose() {
      await sb.dispose();
      await stub.stop();
    },
  };
}

export function geminiWorkerProfile(bin: string | null): WorkerProfile {
  return {
    label: "gemini",
    bin,
    makeWorld: () => makeGeminiWorld(bin),
    worker: "rg",
    spawnFlags: GEMINI_SPAWN_FLAGS,
    timeout: "60s",
    folder: "an untrusted folder",
    spawned: { state: "ready" },
    first: { prompt: "say hello?", reply: "hello from the stub" },
    multiLine: "first line\n  second, indented\n\n\"dq\" 'sq' $HOME `tick` \\back\n日本語 🎉 end?",
    permission: (w) => ({
      reply: bash("echo approved > approved.txt", text("done after approval")),
      prompt: "please run it",
      asks: "Shell: echo approved > approved.txt",
      screen: "Allow execution of [Shell]?",
      read: { exact: "done after approval\n" },
      made: { path: join(w.sb.work, "approved.txt"), content: "approved\n" },
    }),
    approve: { keys: "1" },
    apiError: { status: 400, messageContains: ["API Error", "stub error 400"], usableAfter: true },
    // Nothing in the project or the user's ~/.gemini.
    leftovers: (w) => [join(w.sb.work, ".gemini"), join(w.sb.dir, "home", ".gemini")],
    print: ["--provider", "gemini"],
  };
}
