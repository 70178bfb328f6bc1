// The umbel-managed CODEX_HOME as data, and the hook trust hash against values the real
// codex-cli 0.171.0 wrote into config.toml when "Trust all and continue" was chosen.
import { describe, expect, test } from "bun:test";
import {
  CODEX_HOOKS,
  canonicalJson,
  codexHookTrustHash,
  planCodexHome,
  renderCodexProfile,
} from "../../../src/core/providers/codex/home.ts";
import { tomlString } from "../../../src/core/providers/codex/toml.ts";

/** The command of every measured hook: quotes, a non-ASCII path, a backslash and a tab. */
const COMMAND =
  "sh '/home/ü ser/.umbel/bin/hook-0123abcd.sh' '/home/ü ser/.umbel/sessions/w1/events/hooks.jsonl' \"q\" \\ \t";

describe("codexHookTrustHash (measured on the real binary)", () => {
  test.each([
    // hooks.json handlers as written, and the trusted_hash codex stored for each.
    [
      "stop, timeout 30",
      { eventKey: "stop", timeout: 30 },
      "sha256:42ced41e093daceb42a7424b8bb33306d57308ee94808ce59c8ae2ea51a1d701",
    ],
    [
      "interrupt, timeout 3",
      { eventKey: "interrupt", timeout: 3 },
      "sha256:220970ed124409fd39154ac595294c750ade2b7dd8aaa753a741cbe8137b756c",
    ],
    [
      "permission_request, no timeout (600)",
      { eventKey: "permission_request" },
      "sha256:3d9f7032aa09e832ea13186633d2b091ed40e0a72d27f146c854a754cc678624",
    ],
    [
      "pre_tool_use with matcher Bash",
      { eventKey: "pre_tool_use", timeout: 30, matcher: "Bash" },
      "sha256:5ac9ecfc2236cd1a449488f9b9d997138d63806b023661d460c21528c638b55b",
    ],
    [
      "user_prompt_submit: its matcher is dropped",
      { eventKey: "user_prompt_submit", timeout: 30, matcher: "x" },
      "sha256:10c4eb3122f4350fc96d276b6ee3a5f8bcfc1805dd1c1969fd60ba88dc02e681",
    ],
    [
      "session_end, timeout 60 clamped to 3",
      { eventKey: "session_end", timeout: 60 },
      "sha256:b2b83a3c65e6bf12d99210aa91a8312308ac1428b779fb4052b4d2420fa5e605",
    ],
  ])("%s", (_name, input, hash) => {
    expect(codexHookTrustHash({ command: COMMAND, ...input })).toBe(hash);
  });

  test("a plain command, as in the notes' first home", () => {
    expect(
      codexHookTrustHash({
        eventKey: "stop",
        command: "sh /tmp/cx/hook.sh /tmp/cx/h2/events.jsonl",
        timeout: 30,
      }),
    ).toBe("sha256:431fdc60baa6254f7b5574f265b8b25dbf2c56eddf1953f09812aae64141d4b6");
  });
});

describe("canonicalJson and tomlString", () => {
  test("keys sorted at every level, no spaces, unicode raw", () => {
    expect(canonicalJson({ b: 1, a: [{ z: "ü", y: null }], c: { e: true, d: "x\ty" } })).toBe(
      '{"a":[{"y":null,"z":"ü"}],"b":1,"c":{"d":"x\\ty","e":true}}',
    );
  });
  test.each([
    ["/home/u/project", '"/home/u/project"'],
    ['say "hi" \\ now', '"say \\"hi\\" \\\\ now"'],
    ["tab\tnew\nline\u0001", '"tab\\tnew\\nline\\u0001"'],
    ["ünïcødé ✓", '"ünïcødé ✓"'],
  ])("%j", (text, toml) => {
    expect(tomlString(text)).toBe(toml);
  });
});

describe("planCodexHome", () => {
  const input = {
    home: "/home/u/.umbel/codex-home",
    userHome: "/home/u/.codex",
    userConfig: 'model = "gpt-5.5"\n[projects."/home/u/project"]\ntrust_level = "untrusted"\n',
    worker: "w1",
    cwd: "/home/u/project",
    hookCommand: COMMAND,
  };
  const plan = planCodexHome(input);
  const profile = plan.files.find((file) => file.path.endsWith("umbel-w1.config.toml"));

  test("the user's config is copied verbatim; auth and AGENTS.md are links; the profile is per worker", () => {
    expect(plan.dirs).toEqual(["/home/u/.umbel/codex-home"]);
    expect(plan.files.map((file) => [file.path, file.mode])).toEqual([
      ["/home/u/.umbel/codex-home/config.toml", 0o600],
      ["/home/u/.umbel/codex-home/umbel-w1.config.toml", 0o600],
    ]);
    expect(plan.files[0]?.content).toBe(input.userConfig);
    expect(plan.links).toEqual([
      { path: "/home/u/.umbel/codex-home/auth.json", target: "/home/u/.codex/auth.json" },
      { path: "/home/u/.umbel/codex-home/AGENTS.md", target: "/home/u/.codex/AGENTS.md" },
    ]);
    expect(plan.profile).toBe("umbel-w1");
    expect(plan.removeOnKill).toEqual(["/home/u/.umbel/codex-home/umbel-w1.config.toml"]);
  });

  test("no user config: an empty config.toml", () => {
    expect(planCodexHome({ ...input, userConfig: null }).files[0]?.content).toBe("");
  });

  test("the profile: update check off, the cwd trusted, every hook inline (naming its event) and pre-trusted by its own path", () => {
    const text = profile?.content ?? "";
    expect(text).toContain("check_for_update_on_startup = false\n");
    expect(text).toContain('[projects."/home/u/project"]\ntrust_level = "trusted"\n');
    for (const hook of CODEX_HOOKS) {
      const command = `${COMMAND} ${hook.event}`;
      expect(text).toContain(
        `[[hooks.${hook.event}]]\n[[hooks.${hook.event}.hooks]]\ntype = "command"\ncommand = ${tomlString(command)}\ntimeout = ${hook.timeout}\n`,
      );
      const key = `/home/u/.umbel/codex-home/umbel-w1.config.toml:${hook.key}:0:0`;
      const hash = codexHookTrustHash({ eventKey: hook.key, command, timeout: hook.timeout });
      expect(text).toContain(`[hooks.state.${tomlString(key)}]\ntrusted_hash = "${hash}"\n`);
    }
  });

  test("the stop hash in a profile is the measured function of the command it registers (the event named)", () => {
    const text = renderCodexProfile(
      "/p/umbel-w1.config.toml",
      "/w",
      "sh /tmp/cx/hook.sh /tmp/cx/h2/events.jsonl",
    );
    expect(text).toContain('command = "sh /tmp/cx/hook.sh /tmp/cx/h2/events.jsonl Stop"\n');
    const hash = codexHookTrustHash({
      eventKey: "stop",
      command: "sh /tmp/cx/hook.sh /tmp/cx/h2/events.jsonl Stop",
      timeout: 30,
    });
    expect(text).toContain(`[hooks.state."/p/umbel-w1.config.toml:stop:0:0"]\ntrusted_hash = "${hash}"`);
  });
});

describe("planCodexHome: claude's launch flags in the worker's layer", () => {
  const base = {
    home: "/home/u/.umbel/codex-home",
    userHome: "/home/u/.codex",
    userConfig: null,
    worker: "w1",
    cwd: "/home/u/project",
    hookCommand: "sh hook.sh",
    envNames: ["PATH", "HOME"],
  };
  const PROFILE = "/home/u/.umbel/codex-home/umbel-w1.config.toml";
  const INSTRUCTIONS = "/home/u/.umbel/codex-home/umbel-w1.instructions.md";
  const ODD = 'say "hi" \\ now\nline two\ttab \u0001 ünïcødé ✓ 🎉';
  const layer = (launch: Record<string, unknown>) => {
    const plan = planCodexHome({ ...base, launch });
    const profile = plan.files.find((file) => file.path === PROFILE)?.content ?? "";
    return { plan, profile, toml: Bun.TOML.parse(profile) as Record<string, unknown> };
  };

  test.each([
    ["none", {}, {}],
    ["--system-prompt", { systemPrompt: ODD }, { model_instructions_file: INSTRUCTIONS }],
    ["--append-system-prompt", { appendSystemPrompt: ODD }, { developer_instructions: ODD }],
    [
      "both",
      { systemPrompt: "S", appendSystemPrompt: "A" },
      { model_instructions_file: INSTRUCTIONS, developer_instructions: "A" },
    ],
    ["empty strings are not given", { systemPrompt: "", appendSystemPrompt: "" }, {}],
  ])("%s: top-level keys, read back with a TOML parser", (_name, launch, keys) => {
    const { toml } = layer(launch);
    expect(toml.check_for_update_on_startup).toBe(false);
    expect(toml.model_instructions_file).toBe((keys as Record<string, unknown>).model_instructions_file);
    expect(toml.developer_instructions).toBe((keys as Record<string, unknown>).developer_instructions);
    expect(toml.projects).toEqual({ "/home/u/project": { trust_level: "trusted" } });
  });

  test("--system-prompt: the text in its own 0600 file, removed at kill with the profile", () => {
    const { plan } = layer({ systemPrompt: ODD });
    expect(plan.files.find((file) => file.path === INSTRUCTIONS)).toEqual({
      path: INSTRUCTIONS,
      content: ODD,
      mode: 0o600,
    });
    expect(plan.removeOnKill).toEqual([PROFILE, INSTRUCTIONS]);
    expect(layer({}).plan.files.map((file) => file.path)).not.toContain(INSTRUCTIONS);
  });

  test("--mcp-config: each server a [mcp_servers.*] table; the hooks and their trust stay intact", () => {
    const { toml } = layer({
      mcpServers: {
        umbel: { command: "/usr/bin/umbel", args: ["mcp"] },
        "web api": { type: "http", url: "http://127.0.0.1:9/mcp", headers: { "X-K": 'v"' } },
      },
    });
    expect(toml.mcp_servers).toEqual({
      umbel: {
        command: "/usr/bin/umbel",
        args: ["mcp"],
        env_vars: ["HOME", "PATH", "UMBEL_HOME", "UMBEL_SESSION"],
      },
      web_api: { url: "http://127.0.0.1:9/mcp", http_headers: { "X-K": 'v"' } },
    });
    expect(Object.keys(toml.hooks as object)).toEqual([...CODEX_HOOKS.map((hook) => hook.event), "state"]);
  });

  test("a server codex cannot run is left out (checkLaunchOptions refuses it before launch)", () => {
    const { toml } = layer({ mcpServers: { old: { type: "sse", url: "http://x/sse" } } });
    expect(toml.mcp_servers).toBeUndefined();
  });
});
