// The real gemini-cli 0.61.0 through dist/umbel against the stub model (GOOGLE_GEMINI_BASE_URL + a
// stub API key): the shared one-worker scenarios (scenarios/worker.ts, gemini's profile in
// providers/gemini.ts: spawn in an untrusted folder, turns, a byte-exact 20 KB prompt, a permission
// answered with `umbel keys`, an API error, kill -9 → dead, kill, `-p` text/json), then what only
// gemini has: a fresh folder trusted for the session only, claude's launch flags as the model request
// shows them. One worker carries every interactive case (one spawn keeps the file fast). Skipped
// locally when `npm run setup:real` has not run; UMBEL_REQUIRE_REAL=1 (CI) makes that a failure.
import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UMBEL } from "../helpers/sandbox.ts";
import { text } from "../stub-model/replies.ts";
import { geminiWorkerProfile } from "./providers/gemini.ts";
import { requireRealGemini } from "./real-gemini.ts";
import { workerScenarios } from "./scenarios/worker.ts";

// The real CLI on real tmux takes seconds a test, minutes a file; bun's default is 5 s (declared
// here: a preload's setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(120_000);

const gemini = requireRealGemini("test/real/gemini.test.ts");

workerScenarios(geminiWorkerProfile(gemini), {
  after({ world }) {
    test("a fresh untrusted folder: spawn and -p ask nothing, and no trust is kept for it anywhere", async () => {
      const { sb, stub } = world();
      const folder = join(sb.dir, "fresh");
      mkdirSync(folder);
      const userTrust = join(sb.dir, "home", ".gemini", "trustedFolders.json");
      stub.script(text("from -p"));
      const printed = await sb.umbel(["-p", "--provider", "gemini", "--cwd", folder, "hi"]);
      expect(printed.stdout).toBe("from -p\n");
      expect(printed.stderr).toBe("");
      expect(printed.code).toBe(0);
      const r = await sb.umbel(["spawn", "gt", "--provider", "gemini", "--cwd", folder, "--json"]);
      expect(r.code).toBe(0);
      // GEMINI_CLI_TRUST_WORKSPACE trusts it for the worker's session: no box to answer, nothing said.
      expect(JSON.parse(r.stdout).dialogs).toEqual([]);
      expect(r.stderr).toBe("");
      // Not in the worker's own home (gemini's trustedFolders.json there), nor in the user's.
      expect(existsSync(join(sb.root, "sessions", "gt", "gemini", ".gemini", "trustedFolders.json"))).toBe(
        false,
      );
      expect((await sb.umbel(["kill", "gt", "--purge"])).code).toBe(0);
      expect(existsSync(userTrust)).toBe(false);
      expect(existsSync(join(folder, ".gemini"))).toBe(false);
    });

    test("claude's launch flags on gemini: system prompt, append, --add-dir, MCP servers, excluded tools", async () => {
      const { sb, stub } = world();
      const extra = join(sb.dir, "extra");
      mkdirSync(extra, { recursive: true });
      writeFileSync(join(extra, "marker-in-extra.txt"), "x");
      const userDir = join(sb.dir, "home", ".gemini");
      mkdirSync(userDir, { recursive: true });
      writeFileSync(join(userDir, "GEMINI.md"), "USER MEMORY LINE\n");
      const mcp = JSON.stringify({ mcpServers: { umbel: { command: UMBEL, args: ["mcp"] } } });
      stub.script(text("flags seen"));
      try {
        // yolo: a non-interactive worker in gemini's default mode leaves out the tools that would ask
        // and untrusted MCP servers, as gemini -p does (docs/cli-reference.md, "Permissions").
        const r = await sb.umbel([
          "-p",
          "show me the flags",
          "--provider",
          "gemini",
          "--dangerously-skip-permissions",
          "--system-prompt",
          "SYSTEM TEXT FROM UMBEL",
          "--append-system-prompt",
          "APPENDED TEXT FROM UMBEL",
          "--add-dir",
          extra,
          "--mcp-config",
          mcp,
          "--disallowed-tools",
          "run_shell_command",
          "mcp_umbel_umbel_ls",
        ]);
        expect(r.stdout).toBe("flags seen\n");
        expect(r.code).toBe(0);
      } finally {
        rmSync(userDir, { recursive: true, force: true });
      }
      const request = lastRequest();
      // --system-prompt replaced gemini's core prompt; the context files follow it.
      expect(request.system).toStartWith("SYSTEM TEXT FROM UMBEL\n\n# Contextual Instructions (GEMINI.md)\n");
      expect(request.system).not.toContain("You are Gemini CLI");
      // --append-system-prompt ends the system instruction, after the user's GEMINI.md, in gemini's frame.
      expect(request.system.slice(request.system.indexOf("<loaded_context>"))).toMatch(
        /^<loaded_context>\n--- Context from: \S+\/gemini\/\.gemini\/GEMINI\.md ---\nUSER MEMORY LINE\n\nAPPENDED TEXT FROM UMBEL\n--- End of Context from: \S+ ---\n<\/loaded_context>$/,
      );
      expect(JSON.stringify(request.body.contents)).not.toContain("APPENDED TEXT FROM UMBEL");
      // --add-dir: a workspace directory of the session (its trust box answered by spawn).
      expect(request.body.contents[0]?.parts[0]?.text).toContain(
        `- **Workspace Directories:**\n  - ${sb.work}\n  - ${extra}\n`,
      );
      // --mcp-config: dist/umbel mcp's tools, named mcp_<server>_<tool>; --disallowed-tools took two away.
      expect(request.tools).toContain("mcp_umbel_umbel_spawn");
      expect(request.tools).toContain("write_file");
      expect(request.tools).not.toContain("mcp_umbel_umbel_ls");
      expect(request.tools).not.toContain("run_shell_command");

      stub.script(text("append only"));
      const only = await sb.umbel([
        "-p",
        "again",
        "--provider",
        "gemini",
        "--dangerously-skip-permissions",
        "--append-system-prompt",
        "ONLY APPENDED @settings.json",
      ]);
      expect(only.stdout).toBe("append only\n");
      const plain = lastRequest();
      expect(plain.system).toStartWith("You are Gemini CLI, an interactive CLI agent");
      // ` @settings.json` would import the worker's settings.json; the WORD JOINER keeps it text.
      expect(plain.system).toMatch(
        /\nONLY APPENDED \u2060@settings\.json\n--- End of Context from: \S+ ---\n<\/loaded_context>$/,
      );
      expect(plain.tools).toContain("run_shell_command");
    });

    function lastRequest() {
      const body = world().stub.mainRequests().at(-1)?.body as GeminiBody;
      return {
        body,
        system: body.systemInstruction.parts.map((part) => part.text).join(""),
        tools: body.tools.flatMap((group) => group.functionDeclarations?.map((fn) => fn.name) ?? []),
      };
    }
  },
});

type GeminiBody = {
  systemInstruction: { parts: { text: string }[] };
  contents: { role: string; parts: { text?: string }[] }[];
  tools: { functionDeclarations?: { name: string }[] }[];
};
