// The real codex-cli 0.171.0 through dist/umbel against the stub model, with a "user" CODEX_HOME
// that points codex at the stub: the shared one-worker scenarios (scenarios/worker.ts, codex's
// profile in providers/codex.ts: spawn in an untrusted folder, turns, a byte-exact 20 KB prompt, a
// permission answered with `umbel keys`, an API error, kill -9 → dead, kill, `-p` text/json), then
// what only codex has: an untrusted git checkout, claude's launch flags (system prompts, --add-dir,
// --mcp-config with `umbel mcp`, -c). One worker carries every interactive case (one spawn keeps the
// file fast). Skipped locally when `npm run setup:real` has not run; UMBEL_REQUIRE_REAL=1 (CI) makes
// that a failure.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { UMBEL } from "../helpers/sandbox.ts";
import { text } from "../stub-model/replies.ts";
import type { StubRequest } from "../stub-model/types.ts";
import { codexWorkerProfile } from "./providers/codex.ts";
import { requireRealCodex } from "./real-codex.ts";
import { workerScenarios } from "./scenarios/worker.ts";

// The real CLI on real tmux takes seconds a test, minutes a file; bun's default is 5 s (declared
// here: a preload's setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(120_000);

const codex = requireRealCodex("test/real/codex.test.ts");

workerScenarios(codexWorkerProfile(codex), {
  after({ world }) {
    test("an untrusted git checkout: spawn and -p ask nothing, and no trust is kept for it anywhere", async () => {
      const { sb, stub, userHome } = world();
      // codex asks to trust a git checkout it has no entry for ("Your trust decision will be saved").
      const repo = join(sb.dir, "checkout");
      mkdirSync(repo);
      expect(Bun.spawnSync(["git", "init", "-q", repo]).exitCode).toBe(0);
      const folder = realpathSync(repo);
      const userConfig = () => readFileSync(join(userHome, "config.toml"), "utf8");
      const before = userConfig();
      stub.script(text("from -p"));
      const printed = await sb.umbel(["-p", "--provider", "codex", "--cwd", repo, "hi"]);
      expect(printed.stdout).toBe("from -p\n");
      expect(printed.stderr).toBe("");
      expect(printed.code).toBe(0);
      const r = await sb.umbel(["spawn", "rt", "--provider", "codex", "--cwd", repo, "--json"]);
      expect(r.code).toBe(0);
      // umbel's profile trusts the folder for the worker: no dialog to answer, nothing to say.
      expect(JSON.parse(r.stdout).dialogs).toEqual([]);
      expect(r.stderr).toBe("");
      expect((await sb.umbel(["kill", "rt", "--purge"])).code).toBe(0);
      expect(userConfig()).toBe(before);
      // umbel's shared codex home keeps no trust for it either (only the removed profile had one).
      expect(readFileSync(join(sb.root, "codex-home", "config.toml"), "utf8")).not.toContain(folder);
      expect(existsSync(join(repo, ".codex"))).toBe(false);
    });

    describe("claude's launch flags", () => {
      type Item = { role?: string; content?: { text?: string }[] };
      type Tool = { name?: string; type?: string; tools?: { name: string }[] };
      const texts = (request: StubRequest | undefined, role: string) =>
        ((request?.body as { input?: Item[] } | undefined)?.input ?? [])
          .filter((item) => item.role === role)
          .flatMap((item) => (item.content ?? []).map((part) => part.text ?? ""));

      test("--system-prompt replaces codex's instructions; --append-system-prompt, --add-dir and --mcp-config arrive", async () => {
        const { sb, stub } = world();
        const system = 'You are STUB-SYSTEM. "Quoted", \\ backslash,\nsecond line ünïcødé ✓';
        const appended = "APPENDED developer text\twith a tab 🎉";
        const extra = join(sb.dir, "extra dir");
        mkdirSync(extra);
        // `umbel mcp` as a stdio server, through sh to record the environment codex gives it.
        const envFile = join(sb.dir, "mcp-env.txt");
        const server = {
          command: "sh",
          args: ["-c", `env > '${envFile}'; exec "$0" mcp`, UMBEL],
          env: { OWN: "own" },
        };
        stub.script(text("flags answer"));
        const r = await sb.umbel([
          "-p",
          "--provider",
          "codex",
          "with every flag",
          "--system-prompt",
          system,
          "--append-system-prompt",
          appended,
          "--mcp-config",
          JSON.stringify({ mcpServers: { umbel: server } }),
          "--env",
          "PASSED=yes",
          "--add-dir",
          extra,
          // codex's TUI takes no --add-dir in the read-only sandbox -p runs it in by default.
          "--permission-mode",
          "default",
        ]);
        expect(r.stdout).toBe("flags answer\n");
        expect(r.code).toBe(0);
        const request = stub.mainRequests().at(-1);
        const developer = texts(request, "developer");
        // The system prompt is the first developer message: codex's ~17 KB built-in one is gone.
        expect(developer[0]).toBe(system);
        expect(developer.some((t) => t.startsWith("You are a coding agent running in the Codex CLI"))).toBe(
          false,
        );
        expect(developer).toContain(appended);
        const context = texts(request, "user").find((t) => t.startsWith("<environment_context>")) ?? "";
        expect(context).toContain(`<root>${realpathSync(extra)}</root>`);
        const tools = (request?.body as { tools?: Tool[] } | undefined)?.tools ?? [];
        const umbel = tools.find((tool) => tool.name === "mcp__umbel");
        expect(umbel?.tools?.map((tool) => tool.name)).toEqual(
          expect.arrayContaining(["umbel_spawn", "umbel_send", "umbel_wait", "umbel_read", "umbel_kill"]),
        );
        // codex hands a stdio server HOME, LANG, PATH, TERM, TMPDIR and its env only; umbel forwards
        // the worker's environment as claude would (UMBEL_HOME: the server sees this state root).
        const env = readFileSync(envFile, "utf8");
        expect(env).toContain(`UMBEL_HOME=${sb.root}\n`);
        expect(env).toMatch(/^UMBEL_SESSION=p-/m);
        expect(env).toContain("PASSED=yes\n");
        expect(env).toContain("OWN=own\n");
      });

      test("-c continues the newest conversation of its directory (codex resume --last)", async () => {
        const { sb, stub } = world();
        const here = join(sb.dir, "here");
        const there = join(sb.dir, "there");
        for (const dir of [here, there]) mkdirSync(dir);
        const p = (dir: string, ...args: string[]) =>
          sb.umbel(["-p", "--provider", "codex", "--cwd", dir, ...args]);
        stub.script(text("noted"), text("other answer"), text("continued"));
        expect((await p(here, "remember the word pelican")).stdout).toBe("noted\n");
        expect((await p(there, "a newer thread elsewhere")).stdout).toBe("other answer\n");
        const r = await p(here, "-c", "what was the word?");
        expect(r.stdout).toBe("continued\n");
        expect(r.code).toBe(0);
        const request = stub.mainRequests().at(-1);
        expect(texts(request, "user").filter((t) => !t.startsWith("<"))).toEqual([
          "remember the word pelican",
          "what was the word?",
        ]);
        expect(texts(request, "assistant")).toEqual(["noted"]);
      });
    });
  },
});
