import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnOk } from "../helpers/cli.ts";
import { connectMcp } from "../helpers/mcp-client.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/** `umbel doctor` on real tmux with the fake CLIs: one line per check, the fix, and the exit code. */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

const line = (out: string, id: string) =>
  out.split("\n").find((l) => new RegExp(`^\\w+\\s+${id}\\s`).test(l)) ?? "";

describe("umbel doctor", () => {
  test("a working machine: every check on its own line, exit 0", async () => {
    const r = await sb.umbel(["doctor"]);
    expect(line(r.stdout, "tmux")).toMatch(/^ok\s+tmux\s+\S+ 3\.\d/);
    expect(line(r.stdout, "claude")).toMatch(
      /^ok\s+claude\s+.*fake-claude\.sh 2\.1\.332, the version umbel is tested with$/,
    );
    expect(line(r.stdout, "codex")).toMatch(/^ok\s+codex\s+.*0\.171\.0/);
    expect(line(r.stdout, "gemini")).toMatch(/^ok\s+gemini\s+.*0\.61\.0/);
    expect(line(r.stdout, "state")).toMatch(/^ok\s+state\s+/);
    expect(r.stdout).toMatch(/\n\d+ ok, \d+ warn, 0 fail\n$/);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  test("a newer CLI, a token no worker gets, an API key and a dead worker: warn lines with their fixes", async () => {
    const newer = join(sb.dir, "codex-newer");
    writeFileSync(newer, "#!/bin/sh\necho codex-cli 0.172.0\n");
    chmodSync(newer, 0o755);
    await spawnOk(sb, "gone");
    expect((await sb.umbel(["kill", "gone"])).code).toBe(0);
    const r = await sb.umbel(["doctor"], {
      env: { UMBEL_CODEX_BIN: newer, CLAUDE_CODE_OAUTH_TOKEN: "tok", ANTHROPIC_API_KEY: "sk" },
    });
    expect(line(r.stdout, "codex")).toContain(
      "0.172.0 is newer than 0.171.0, the version umbel is tested with — fix: if a codex worker misbehaves, install the tested one: npm install -g @openai/codex@0.171.0",
    );
    expect(line(r.stdout, "claude-sign-in")).toContain("fix: pass it with --env CLAUDE_CODE_OAUTH_TOKEN");
    expect(line(r.stdout, "billing")).toContain("ANTHROPIC_API_KEY is set; umbel does not pass it");
    expect(line(r.stdout, "workers")).toMatch(
      /^warn\s+workers\s+0 live; 1 dead or killed \(gone\) — fix: umbel prune$/,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("tok");
    expect((await sb.umbel(["prune"])).code).toBe(0);
  });

  test("a state root others can read fails (exit 1); --json is the whole result", async () => {
    chmodSync(sb.root, 0o755);
    try {
      const r = await sb.umbel(["doctor"]);
      expect(line(r.stdout, "state")).toMatch(/^fail {2}state {2,}\S/);
      expect(line(r.stdout, "state")).toEndWith(
        `state ${sb.root} is mode 0755: other users can read the workers' state — fix: chmod 700 ${sb.root}`.replace(
          /^state /,
          "",
        ),
      );
      expect(r.code).toBe(1);
      // Any umbel that touches the state tightens the root to 0700 (adapters/state-root.ts): loosen it again.
      chmodSync(sb.root, 0o755);
      const j = await sb.umbel(["doctor", "--json"]);
      const result = JSON.parse(j.stdout) as { ok: boolean; checks: { id: string; status: string }[] };
      expect(result.ok).toBe(false);
      expect(result.checks.find((c) => c.id === "state")?.status).toBe("fail");
      expect(j.code).toBe(1);
    } finally {
      chmodSync(sb.root, 0o700);
    }
  });

  test("umbel_doctor over MCP: the same checks as structured content", async () => {
    const mcp = await connectMcp(sb);
    try {
      const result = await mcp.ok<{ ok: boolean; checks: { id: string }[] }>("umbel_doctor");
      expect(result.ok).toBe(true);
      expect(result.checks.map((c) => c.id)).toContain("tmux");
    } finally {
      await mcp.close();
    }
  });
});
