import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnOk } from "../helpers/cli.ts";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * `umbel completion bash|zsh|fish`, each script sourced in its own shell (bash, zsh and fish come
 * from Debian; .ci/run installs them). Worker names come from `umbel ls` of the caller's state root.
 */

let sb: Sandbox;
let scripts: Record<string, string>;
let env: Record<string, string>;

beforeAll(async () => {
  sb = await createSandbox();
  await spawnOk(sb, "alpha");
  await spawnOk(sb, "beta");
  // The scripts run `umbel ls`: the binary under test, first on PATH.
  const bin = join(sb.dir, "bin");
  mkdirSync(bin);
  symlinkSync(UMBEL, join(bin, "umbel"));
  env = { ...sb.env, PATH: `${bin}:${sb.env.PATH}` };
  scripts = {};
  for (const shell of ["bash", "zsh", "fish"]) {
    const r = await sb.umbel(["completion", shell]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    scripts[shell] = join(sb.dir, `umbel.${shell}`);
    writeFileSync(scripts[shell] ?? "", r.stdout);
  }
}, 60_000);
afterAll(async () => {
  await sb.dispose();
});

function run(argv: string[]): string {
  const r = Bun.spawnSync(argv, { env, cwd: sb.work });
  if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} failed: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

/** bash: the real completion function, called as bash's readline would. */
function bash(line: string): string[] {
  const words = line.split(" ");
  const script = `source ${scripts.bash}
complete -p umbel >/dev/null || exit 3
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; COMP_LINE='${line}'; COMP_POINT=${line.length}
_umbel umbel '${words.at(-1)}' '${words.at(-2)}'
printf '%s\\n' "\${COMPREPLY[@]}"`;
  return run(["bash", "--norc", "--noprofile", "-c", script]).split("\n").filter(Boolean).sort();
}

/** zsh: the script registered through compinit; compadd captured as the candidates offered. */
function zsh(line: string): string[] {
  const words = line.split(" ");
  const script = `autoload -Uz compinit && compinit -u -d ${sb.dir}/zcompdump
source ${scripts.zsh}
[[ $_comps[umbel] == _umbel ]] || exit 3
# compadd as zsh's own matching does it: the candidates after --, those that start with PREFIX.
compadd() { local -a args; args=("$@"); local c; for c in "\${(@)args[\${args[(i)--]}+1,-1]}"; do [[ $c == "$PREFIX"* ]] && print -r -- "$c"; done; return 0 }
_files() { :; }
words=(${words.map((w) => `'${w}'`).join(" ")}); CURRENT=${words.length}; PREFIX='${words.at(-1)}'
_umbel`;
  return run(["zsh", "-f", "-c", script]).split("\n").filter(Boolean).sort();
}

/** fish: its own `complete -C`, the candidates fish itself would show. */
function fish(line: string): string[] {
  const out = run(["fish", "--no-config", "-c", `source ${scripts.fish}; complete -C '${line}'`]);
  return out
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t")[0] ?? "")
    .sort();
}

const SHELLS = { bash, zsh, fish };

describe.each(Object.keys(SHELLS))("%s", (name) => {
  const complete = SHELLS[name as keyof typeof SHELLS];

  test("is installed (Debian: apt-get install bash zsh fish; .ci/run installs them)", () => {
    if (!Bun.which(name)) throw new Error(`${name} is not installed: apt-get install ${name}`);
  });

  test("the verbs, from the verb table, and the faces that are not verbs", () => {
    const verbs = complete("umbel ");
    for (const v of [
      "spawn",
      "send",
      "wait",
      "read",
      "kill",
      "prune",
      "status",
      "ls",
      "doctor",
      "run",
      "mcp",
      "completion",
    ])
      expect(verbs).toContain(v);
    expect(complete("umbel sp")).toEqual(["spawn"]);
  });

  test("a verb's flags, from its zod schema", () => {
    const flags = complete("umbel spawn --");
    for (const f of ["--provider", "--cwd", "--permission-mode", "--env", "--unattended", "--json"])
      expect(flags).toContain(f);
    expect(complete("umbel wait --idle")).toEqual(["--idle-timeout"]);
  });

  test("enum values", () => {
    expect(complete("umbel spawn w --provider ")).toEqual(["claude", "codex", "gemini", "opencode"]);
    expect(complete("umbel spawn w --permission-mode by")).toEqual(["bypassPermissions"]);
  });

  test("worker names from umbel ls, where a verb takes one", () => {
    expect(complete("umbel wait ")).toEqual(["alpha", "beta"]);
    expect(complete("umbel kill a")).toEqual(["alpha"]);
  });

  test("completion's own argument", () => {
    expect(complete("umbel completion ")).toEqual(["bash", "fish", "zsh"]);
  });

  test("exec is a command; -p's flags and exec's, with their values", () => {
    expect(complete("umbel ex")).toEqual(["exec"]);
    const print = complete("umbel -p --");
    for (const f of [
      "--output-format",
      "--allowedTools",
      "--allowed-tools",
      "--resume",
      "--provider",
      "--dialect",
    ])
      expect(print).toContain(f);
    expect(complete("umbel -p --output-format ")).toEqual(["json", "stream-json", "text"]);
    expect(complete("umbel --print --provider o")).toEqual(["opencode"]);
    const exec = complete("umbel exec --");
    for (const f of ["--json", "--output-last-message", "--sandbox", "--provider", "--max-tokens"])
      expect(exec).toContain(f);
    expect(exec).not.toContain("--output-format");
    expect(complete("umbel exec --sandbox ")).toEqual(["danger-full-access", "read-only", "workspace-write"]);
    expect(complete("umbel exec ")).toEqual(["resume"]);
  });

  test("pool's actions; answer's choices after the worker", () => {
    expect(complete("umbel pool ")).toEqual(["drain", "ls", "warm"]);
    expect(complete("umbel pool warm 2 --provider c")).toEqual(["claude", "codex"]);
    expect(complete("umbel answer ")).toEqual(["alpha", "beta"]);
    expect(complete("umbel answer alpha ")).toEqual(["allow", "always", "deny"]);
    expect(complete("umbel answer alpha allow ")).toEqual([]);
  });

  test("wait --any and --all: a worker name at every place", () => {
    expect(complete("umbel wait --any alpha ")).toEqual(["alpha", "beta"]);
    expect(complete("umbel wait --all alpha b")).toEqual(["beta"]);
    expect(complete("umbel kill alpha ")).toEqual([]);
  });
});

test("an unknown shell is a usage error; --help says how to install each script", async () => {
  const r = await sb.umbel(["completion", "powershell"]);
  expect(r.stderr).toBe("umbel: umbel completion takes one of bash, zsh, fish (got powershell)\n");
  expect(r.code).toBe(2);
  const help = await sb.umbel(["completion", "--help"]);
  expect(help.stdout).toContain("source <(umbel completion bash)");
  expect(help.code).toBe(0);
});
