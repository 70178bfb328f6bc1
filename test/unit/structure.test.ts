import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ProviderId } from "../../src/core/schemas.ts";

const ROOT = join(import.meta.dir, "..", "..");

function files(dir: string, exts: string[]): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir))) {
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...files(path, exts));
    else if (exts.some((e) => entry.endsWith(e))) out.push(path);
  }
  return out;
}

/** A tmux invocation: a "tmux" string as a program name, or tmux at the start of a shell command. */
const INVOKES_TMUX = [
  /["'`]tmux["'`]\s*[,\]]/,
  /["'`]tmux\s+-/,
  /^\s*(exec\s+)?tmux\s/m,
  /\$\(\s*tmux\s/,
  /spawn(Sync)?\(\s*\[?\s*["'`]tmux/,
];
const ALLOWED = new Set(["src/adapters/tmux.ts", "hooks/launch.sh", "test/unit/structure.test.ts"]);

describe("structure", () => {
  test("tmux is invoked only by src/adapters/tmux.ts (and the launch wrapper, through -L)", () => {
    const offenders = [
      ...files("src", [".ts"]),
      ...files("hooks", [".sh"]),
      ...files("test", [".ts", ".sh"]),
      ...files("scripts", [".ts"]),
    ]
      .filter((f) => !ALLOWED.has(f))
      .filter((f) => INVOKES_TMUX.some((re) => re.test(readFileSync(join(ROOT, f), "utf8"))));
    expect(offenders).toEqual([]);
  });

  test("the launch wrapper calls tmux only through own_tmux: its pane's own server (-S from TMUX, else -L)", () => {
    const lines = readFileSync(join(ROOT, "hooks/launch.sh"), "utf8")
      .split("\n")
      .filter((l) => !l.trim().startsWith("#"));
    const calls = lines.filter((l) => /"\$tmux_bin"/.test(l));
    expect(calls.map((l) => l.trim())).toEqual([
      '"$tmux_bin" -S "$server" -f /dev/null "$@"',
      '"$tmux_bin" -L "$sock" -f /dev/null "$@"',
    ]);
    expect(lines.filter((l) => /\bown_tmux\b/.test(l)).length).toBeGreaterThan(1);
  });

  const layers: Record<string, string[]> = {
    "src/core": ["src/adapters", "src/operations", "src/faces"],
    "src/adapters": ["src/operations", "src/faces"],
    "src/operations": ["src/faces"],
  };
  test.each(Object.entries(layers))("%s imports no upper layer", (layer, forbidden) => {
    for (const file of files(layer, [".ts"])) {
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const [, spec] of text.matchAll(/from\s+["']([^"']+)["']/g)) {
        if (!spec?.startsWith(".")) continue;
        const target = relative(ROOT, join(ROOT, file, "..", spec));
        expect({ file, target, bad: forbidden.some((f) => target.startsWith(f)) }).toEqual({
          file,
          target,
          bad: false,
        });
      }
    }
  });

  test("core is pure: no fs, processes, env, clock or console", () => {
    const impure = [
      /from\s+["']node:(fs|child_process|os|net|http)/,
      /\bBun\./,
      /process\.env/,
      /Date\.now\(/,
      /new Date\(\)/,
      /console\./,
    ];
    for (const file of files("src/core", [".ts"])) {
      const read = readFileSync(join(ROOT, file), "utf8");
      // Bun's hasher is a pure function of its input: core hashes through this one file.
      const text =
        file === "src/core/common/sha256.ts" ? read.replace('new Bun.CryptoHasher("sha256")', "") : read;
      for (const re of impure)
        expect({ file, re: re.source, hit: re.test(text) }).toEqual({ file, re: re.source, hit: false });
    }
  });

  test("operations import no adapter and read no clock, randomness or system directly (ports only)", () => {
    const direct = [
      /from\s+["'][./]*adapters\//,
      /from\s+["']node:(fs|fs\/promises|child_process|os|crypto|net|http)["']/,
      /\bBun\./,
      /process\.(env|pid|cwd|getuid|kill)/,
      /Date\.now\(/,
      /new Date\(\)/,
      /Math\.random\(/,
      /crypto\.randomUUID/,
      /\bsetTimeout\(/,
    ];
    for (const file of files("src/operations", [".ts"])) {
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const re of direct)
        expect({ file, re: re.source, hit: re.test(text) }).toEqual({ file, re: re.source, hit: false });
    }
  });

  /** The files every provider shares; everything else of a provider lives in its own folder. */
  const SHARED = [
    "registry.ts",
    "load.ts",
    "hook-wire.ts",
    "hook-policy.ts",
    "stream-shape.ts",
    "transcript-types.ts",
    "hook-event.ts",
    "home-types.ts",
    "launch-types.ts",
    "types.ts",
    "usage.ts",
    "session-carry.ts",
  ];
  const providerFiles = () =>
    files("src/core/providers", [".ts"]).map((f) => relative("src/core/providers", f));

  test("every provider file lives in its provider's folder or is one of the shared files", () => {
    const misplaced = providerFiles().filter((file) => {
      const parts = file.split("/");
      if (parts.length === 1) return !SHARED.includes(file);
      return parts.length !== 2 || !(ProviderId.options as readonly string[]).includes(parts[0] ?? "");
    });
    expect(misplaced).toEqual([]);
    expect(providerFiles().filter((file) => file.endsWith("index.ts"))).toEqual([]);
  });

  test("the provider contract needs no casts and no runtime throws", () => {
    for (const file of providerFiles()) {
      const text = readFileSync(join(ROOT, "src/core/providers", file), "utf8");
      expect({ file, throws: /throw new Error\b/.test(text) }).toEqual({ file, throws: false });
      expect({ file, casts: /\bas\s+\w*Input\b/.test(text) }).toEqual({ file, casts: false });
    }
  });

  /**
   * The floor plan (docs/architecture.md opens with it): a feature is one folder of the same name in
   * each layer, beside a handful of shared files. A new top-level entry is a decision: add it here
   * and to the map in the same change.
   */
  const FEATURES = [
    "acp",
    "accounts",
    "common",
    "dialects",
    "doctor",
    "fleet",
    "guard",
    "hosts",
    "limits",
    "pool",
    "print",
    "providers",
    "spawn",
    "wait",
    "worker",
    "workflow",
  ];
  const CORE_SHARED = ["errors.ts", "ports.ts", "schemas.ts"];
  /** operations/<x> exists only where core/<x> does, or is listed here with its reason. */
  const OPERATIONS_ONLY: string[] = [];
  const FACES = ["acp", "cli", "hooks", "mcp", "print", "route.ts", "structured", "verbs", "workflow"];
  /** test/unit groups like src: a feature's folder, the faces', the adapters', shipping's (scripts, images). */
  const TEST_GROUPS = [...FEATURES, "faces", "adapters", "shipping"];
  const entries = (dir: string) => readdirSync(join(ROOT, dir)).sort();
  const isDir = (path: string) => statSync(join(ROOT, path)).isDirectory();

  test("core's top level is the feature folders and the shared files", () => {
    expect(entries("src/core")).toEqual([...FEATURES, ...CORE_SHARED].sort());
    expect(FEATURES.filter((f) => !isDir(`src/core/${f}`))).toEqual([]);
  });

  test("operations holds feature folders only, each one core has (or a listed exception)", () => {
    const top = entries("src/operations");
    expect(top.filter((e) => !isDir(`src/operations/${e}`))).toEqual([]);
    expect(top.filter((e) => !FEATURES.includes(e) && !OPERATIONS_ONLY.includes(e))).toEqual([]);
  });

  /** The adapters every feature shares (one kind of I/O each); a feature's own I/O is in its folder. */
  const ADAPTERS_SHARED = [
    "assets.ts",
    "bounded-log.ts",
    "deps.ts",
    "files.ts",
    "git.ts",
    "host.ts",
    "lock-file.ts",
    "lock-scan.ts",
    "process-start.ts",
    "process.ts",
    "records.ts",
    "state-root.ts",
    "state.ts",
    "stdio.ts",
    "tail.ts",
    "tmux.ts",
    "trace-ports.ts",
    "trace.ts",
    "watch.ts",
  ];

  test("adapters: the shared ones, then feature folders named as core's; faces are the listed ones", () => {
    const top = entries("src/adapters");
    const adapterDirs = top.filter((e) => isDir(`src/adapters/${e}`));
    expect(adapterDirs.filter((e) => !FEATURES.includes(e))).toEqual([]);
    expect(top.filter((e) => !isDir(`src/adapters/${e}`))).toEqual([...ADAPTERS_SHARED].sort());
    expect(entries("src/faces")).toEqual([...FACES].sort());
  });

  /** Every provider folder has the same layout: the same core files, and others only from one list. */
  const PROVIDER_CORE = ["events.ts", "provider.ts", "screen.ts", "stream.ts", "transcript.ts"];
  const PROVIDER_CONCERNS = [
    "answer.ts",
    "billing.ts",
    "home.ts",
    "launch.ts",
    "limits.ts",
    "mcp.ts",
    "non-interactive.ts",
    "policy.ts",
    "sign-in.ts",
    "telemetry.ts",
    "toml.ts",
  ];
  test.each(ProviderId.options)("providers/%s has the provider layout", (id) => {
    const held = entries(`src/core/providers/${id}`);
    expect(PROVIDER_CORE.filter((f) => !held.includes(f))).toEqual([]);
    expect(held.filter((f) => !PROVIDER_CORE.includes(f) && !PROVIDER_CONCERNS.includes(f))).toEqual([]);
  });

  /**
   * A CLI's facts live behind the provider contract: core's shared files quote no provider's id or
   * tool name (its `tools` vocabulary) in code, but where the word is that file's own concept.
   */
  const NAMES_A_PROVIDER: Record<string, { words: string[]; why: string }> = {
    "src/core/schemas.ts": { words: ProviderId.options, why: "the ProviderId enum itself" },
    "src/core/dialects/dialect.ts": {
      words: ["claude", "gemini", "codex"],
      why: "the -p dialects are named for the CLIs they copy",
    },
    "src/core/worker/default-provider.ts": { words: ["claude"], why: "the fallback provider" },
    "src/core/worker/user-config.ts": { words: ["codex"], why: "config.toml's example in an error" },
    "src/core/dialects/codex.ts": {
      words: ["web_search"],
      why: "codex exec's own item type, the dialect's output",
    },
    "src/core/providers/hook-policy.ts": {
      words: ["Bash"],
      why: "the tool name on claude's hook wire, which codex's hooks share",
    },
    "src/core/common/fs-fault.ts": { words: ["write"], why: "a filesystem action" },
    "src/core/fleet/policy/file-options.ts": {
      words: ["shell", "write"],
      why: "option words of a command line",
    },
    "src/core/fleet/policy/wrappers.ts": { words: ["bash"], why: "the shell" },
    "src/core/acp/updates.ts": { words: ["edit"], why: "ACP's kind of tool call" },
  };
  test("core's shared files name no provider: its id and tool names stay in its folder and the registry", async () => {
    const { listProviders } = await import("../../src/core/providers/registry.ts");
    const words = new Set(
      listProviders().flatMap((p) => {
        const t = p.tools;
        return [p.id, ...t.command, ...t.write, ...t.edit, ...t.web, ...(t.patch ?? [])];
      }),
    );
    const own = /^src\/core\/providers\/([^/]+)\//;
    const named = files("src/core", [".ts"]).flatMap((file) => {
      const folder = own.exec(file)?.[1];
      if ((folder !== undefined && words.has(folder)) || file === "src/core/providers/registry.ts") return [];
      const code = readFileSync(join(ROOT, file), "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/^\s*\/\/.*$/gm, "");
      const allowed = NAMES_A_PROVIDER[file]?.words ?? [];
      const hits = [...code.matchAll(/"([A-Za-z_]+)"/g)]
        .map((m) => m[1] ?? "")
        .filter((w) => words.has(w) && !allowed.includes(w));
      return hits.length > 0 ? [{ file, names: [...new Set(hits)] }] : [];
    });
    expect(named).toEqual([]);
  });

  /**
   * faces/route.ts runs at every start (`--version` included) before any face is chosen: what it
   * imports, transitively, loads no schema library (zod's module alone costs milliseconds of every start).
   */
  test("what route.ts imports at run time loads no zod", () => {
    const seen = new Set<string>();
    const zod: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const m of text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+["']([^"']+)["']/gm)) {
        const target = m[1] ?? "";
        if (target === "zod") zod.push(file);
        else if (target.startsWith(".")) visit(relative(ROOT, join(ROOT, file, "..", target)));
      }
    };
    visit("src/faces/route.ts");
    expect(zod).toEqual([]);
  });

  /**
   * The provider contract once sat in a 9-file cycle (types.ts → fleet/answer.ts → wait/turn.ts →
   * types.ts, limits.ts ↔ types.ts over HookEvent, schemas.ts → limits.ts → types.ts → schemas.ts):
   * a file in a cycle can be read, tested or moved only with all the others. Type imports count.
   */
  test("no import cycle anywhere in src (type imports count)", () => {
    const graph = new Map<string, string[]>();
    for (const file of files("src", [".ts"])) {
      const text = readFileSync(join(ROOT, file), "utf8");
      const targets = [...text.matchAll(/^(?:import|export)\b[^;]*?from\s+["'](\.[^"']+)["']/gm)].map((m) =>
        relative(ROOT, join(ROOT, file, "..", m[1] ?? "")),
      );
      graph.set(file, targets);
    }
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, "open");
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next].join(" → "));
        else if (!state.has(next) && graph.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, "done");
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  test("no file name repeats its folder as a prefix (guard/guard-plan.ts is guard/plan.ts)", () => {
    const repeating = [...files("src", [".ts", ".md"]), ...files("test/unit", [".ts"])].filter((file) => {
      const parts = file.split("/");
      const folder = parts.at(-2) ?? "";
      return (parts.at(-1) ?? "").startsWith(`${folder}-`);
    });
    expect(repeating).toEqual([]);
  });

  test("unit tests are grouped like src: test/unit/<feature>/, and the structure test at the top", () => {
    const top = entries("test/unit");
    expect(top.filter((e) => !isDir(`test/unit/${e}`))).toEqual(["structure.test.ts"]);
    expect(top.filter((e) => isDir(`test/unit/${e}`) && !TEST_GROUPS.includes(e))).toEqual([]);
  });

  /**
   * The real tier writes a scenario once and runs it over every CLI (issue 23): a module that declares
   * tests without being a test file is such a table and lives in test/real/scenarios/; a provider's
   * world and the data its scenarios expect live in test/real/providers/<cli>.ts, which declares none.
   */
  test("real-tier scenario tables live in test/real/scenarios/, provider profiles in test/real/providers/", () => {
    const DECLARES = /^import \{[^}]*\b(describe|test)\b[^}]*\} from "bun:test";/m;
    const modules = files("test/real", [".ts"]).filter((file) => !file.endsWith(".test.ts"));
    const declaring = modules.filter((file) => DECLARES.test(readFileSync(join(ROOT, file), "utf8")));
    expect(declaring).toContain("test/real/scenarios/worker.ts");
    expect(declaring.filter((file) => !file.startsWith("test/real/scenarios/"))).toEqual([]);
    expect(files("test/real/scenarios", [".test.ts"])).toEqual([]);
    expect(
      files("test/real/providers", [".ts"]).filter(
        (file) => declaring.includes(file) || file.endsWith(".test.ts"),
      ),
    ).toEqual([]);
  });

  /**
   * bun's default is 5 s, and bun 1.4.5 gives a preload's setDefaultTimeout to the first file of a
   * run only; an e2e test that took 4.25 s alone timed out under load. A file of these tiers starts
   * processes, tmux or real CLIs, so it declares its own default at its top (per-test values still
   * override it).
   */
  const MIN_FILE_TIMEOUT_MS = 20_000;
  test("every e2e, integration and real test file declares a file-level timeout fit for loaded cores", () => {
    const tiers = ["test/e2e", "test/integration", "test/real"].flatMap((dir) => files(dir, [".test.ts"]));
    expect(tiers.length).toBeGreaterThan(50);
    /** Its top-level setDefaultTimeout: a number, or a const of the file that holds one. */
    const declared = (file: string): number | null => {
      const text = readFileSync(join(ROOT, file), "utf8");
      const arg = /^setDefaultTimeout\(([\w]+)\);/m.exec(text)?.[1];
      const value =
        arg && /^[A-Z_]+$/.test(arg) ? new RegExp(`^const ${arg} = ([\\d_]+);`, "m").exec(text)?.[1] : arg;
      return value === undefined || !/^[\d_]+$/.test(value) ? null : Number(value.replaceAll("_", ""));
    };
    const unfit = tiers
      .map((file) => ({ file, timeoutMs: declared(file) }))
      .filter(({ timeoutMs }) => timeoutMs === null || timeoutMs < MIN_FILE_TIMEOUT_MS);
    expect(unfit).toEqual([]);
  });
});
