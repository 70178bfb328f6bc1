/**
 * `codex app-server` (stdio JSON-RPC) driven directly on the stub, with a Stop and a UserPromptSubmit
 * hook in its config (pre-trusted as umbel's are): a thread's first turn and later ones (turn/start →
 * turn/completed), whether the hooks ran, and whether the rollout was written. What a pooled turn
 * through `codex --remote` could cost at best. Not part of `npm run bench`.
 *
 *   bun run bench/measure/codex-app-server.ts [turns=3] [threads=2]
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codexHookTrustHash } from "../../src/core/providers/codex/home.ts";
import { tomlString } from "../../src/core/providers/codex/toml.ts";
import { codexEnv, seedCodexWorld, stubProviderToml } from "../../test/helpers/codex-world.ts";
import { createSandbox } from "../../test/helpers/sandbox.ts";
import { requireRealCodex } from "../../test/real/real-codex.ts";
import { startStubModel } from "../../test/stub-model/stub-model.ts";

const turns = Number(process.argv[2] ?? 3);
const threads = Number(process.argv[3] ?? 2);
const bin = requireRealCodex("bench");
if (!bin) process.exit(2);
const stub = await startStubModel({ dialect: "openai" });
const sb = await createSandbox({ untrusted: true });
const world = seedCodexWorld(join(sb.dir, "codex"), stubProviderToml(stub.url));
const home = join(sb.dir, "codex", "as-home");
mkdirSync(home, { recursive: true, mode: 0o700 });
const cwd = realpathSync(sb.work);
const marks = join(sb.dir, "marks");
mkdirSync(marks);
const configPath = join(realpathSync(home), "config.toml");
const hook = (event: string, key: string) => {
  const command = `date +%s%N >> ${marks}/${event}`;
  const hash = codexHookTrustHash({ eventKey: key, command, timeout: 30 });
  return [
    `[[hooks.${event}]]`,
    `[[hooks.${event}.hooks]]`,
    'type = "command"',
    `command = ${tomlString(command)}`,
    "timeout = 30",
    "",
    `[hooks.state.${tomlString(`${configPath}:${key}:0:0`)}]`,
    `trusted_hash = "${hash}"`,
    "",
  ];
};
writeFileSync(
  configPath,
  [
    stubProviderToml(stub.url),
    "check_for_update_on_startup = false",
    "",
    `[projects.${tomlString(cwd)}]`,
    'trust_level = "trusted"',
    "",
    ...hook("UserPromptSubmit", "user_prompt_submit"),
    ...hook("Stop", "stop"),
  ].join("\n"),
  { mode: 0o600 },
);
writeFileSync(join(home, "auth.json"), readFileSync(join(world.userCodexHome, "auth.json")));

const child = Bun.spawn([bin, "app-server"], {
  cwd,
  env: codexEnv(world, home),
  stdin: "pipe",
  stdout: "pipe",
  stderr: "ignore",
});
let id = 0;
const pending = new Map<number, (r: unknown) => void>();
const notes: { at: number; method: string; params: Record<string, unknown> }[] = [];
const waiters: ((n: (typeof notes)[number]) => void)[] = [];
(async () => {
  let buf = "";
  for await (const chunk of child.stdout) {
    buf += new TextDecoder().decode(chunk);
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line) as {
        id?: number;
        method?: string;
        result?: unknown;
        error?: unknown;
        params?: Record<string, unknown>;
      };
      if (msg.id !== undefined && msg.method === undefined)
        pending.get(msg.id)?.(msg.result ?? { error: msg.error });
      else if (msg.method) {
        const n = { at: performance.now(), method: msg.method, params: msg.params ?? {} };
        notes.push(n);
        for (const w of waiters.splice(0)) w(n);
      }
    }
  }
})();
const send = (method: string, params: unknown) =>
  new Promise<Record<string, unknown>>((resolve) => {
    const n = id++;
    pending.set(n, (r) => resolve(r as Record<string, unknown>));
    child.stdin.write(`${JSON.stringify({ id: n, method, params })}\n`);
    child.stdin.flush();
  });
const until = async (method: string, after: number) => {
  for (;;) {
    const hit = notes.find((n) => n.method === method && n.at >= after);
    if (hit) return hit;
    await new Promise<void>((r) => waiters.push(() => r()));
  }
};

try {
  const init = await send("initialize", { clientInfo: { name: "umbel-bench", version: "0" } });
  child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
  console.log("initialize:", JSON.stringify(init).slice(0, 160));
  for (let t = 0; t < threads; t++) {
    const t0 = performance.now();
    const started = await send("thread/start", { cwd });
    const thread = (started.thread as { id?: string } | undefined)?.id;
    console.log(
      `thread ${t}: thread/start ${(performance.now() - t0).toFixed(0)} ms (${thread ?? JSON.stringify(started).slice(0, 200)})`,
    );
    await Bun.sleep(1000);
    for (let i = 0; i < turns; i++) {
      const s = performance.now();
      await send("turn/start", { threadId: thread, input: [{ type: "text", text: `as ${t}.${i}` }] });
      const begun = await until("turn/started", s);
      const done = await until("turn/completed", s);
      console.log(
        `  turn ${i}: turn/started +${(begun.at - s).toFixed(0)} ms, turn/completed +${(done.at - s).toFixed(0)} ms`,
      );
      await Bun.sleep(500);
    }
  }
  await Bun.sleep(500);
  for (const f of ["UserPromptSubmit", "Stop"])
    console.log(
      `hook ${f} ran ${existsSync(join(marks, f)) ? readFileSync(join(marks, f), "utf8").trim().split("\n").length : 0} times`,
    );
  const sessions = join(home, "sessions");
  const rollouts = existsSync(sessions)
    ? readdirSync(sessions, { recursive: true }).filter((f) => String(f).endsWith(".jsonl"))
    : [];
  console.log(`rollouts written: ${rollouts.length}`);
  console.log(`stub requests: ${stub.requests.map((r) => r.kind).join(" ")}`);
} finally {
  child.kill();
  await sb.dispose();
  await stub.stop();
}
