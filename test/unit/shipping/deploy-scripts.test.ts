import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jobPodSpec } from "../../helpers/kubernetes.ts";

/**
 * The shell the manifests run, run here with sh and a fake umbel that logs its argv and the token it
 * was given: the init container's pick of shard N's token, the shard's start, resume and skip, and
 * the collecting Job's report. Paths inside the pod (the Secret's mount) are moved into a temp dir.
 */

const DIR = join(import.meta.dir, "..", "..", "..", "deploy", "kubernetes");
type Container = {
  name: string;
  args: string[];
  env?: { name: string; value?: string }[];
  volumeMounts?: { mountPath: string }[];
};
type PodSpec = { initContainers?: Container[]; containers: Container[] };
const podOf = (file: string) => jobPodSpec<PodSpec>(DIR, file);
const shards = podOf("shards.yaml");
const init = shards.initContainers?.[0] as Container;
const shard = shards.containers[0] as Container;
const collect = podOf("collect.yaml").containers[0] as Container;
const script = (c: Container) => c.args.at(-1) ?? "";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function scratch(): { dir: string; bin: string; log: string; results: string } {
  const dir = mkdtempSync(join(tmpdir(), "umbel-k8s-"));
  dirs.push(dir);
  const bin = join(dir, "bin");
  const results = join(dir, "results");
  mkdirSync(bin);
  mkdirSync(results);
  const log = join(dir, "umbel.log");
  // The fake: logs its argv and token, prints a run line and a summary as umbel run --json does.
  writeFileSync(
    join(bin, "umbel"),
    `#!/bin/sh\necho "$* token=$CLAUDE_CODE_OAUTH_TOKEN" >>'${log}'\n` +
      `echo '{"event":"run","runId":"20250301-142501-3fa2c1","file":"/flows/shard.yaml"}'\n` +
      `echo '{"event":"summary","dryRun":false,"runId":"20250301-142501-3fa2c1","status":"done","exitCode":0}'\n`,
  );
  chmodSync(join(bin, "umbel"), 0o755);
  return { dir, bin, log, results };
}
function sh(source: string, cwd: string, env: Record<string, string>) {
  const run = Bun.spawnSync(["sh", "-c", source], { cwd, env: { PATH: process.env.PATH ?? "", ...env } });
  return { code: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}
const readLog = (log: string) => {
  try {
    return readFileSync(log, "utf8");
  } catch {
    return "";
  }
};

describe("shards.yaml's init container", () => {
  test("copies token-N of the Secret for index N, and only it, readable by its user only", () => {
    const s = scratch();
    const tokens = join(s.dir, "tokens");
    mkdirSync(tokens);
    for (const i of [0, 1, 2]) writeFileSync(join(tokens, `token-${i}`), `sk-ant-oat01-shard-${i}`);
    const mount = init.volumeMounts?.[0]?.mountPath ?? "";
    const file = join(s.dir, "token");
    const r = sh(script(init).replaceAll(`${mount}/`, `${tokens}/`), s.dir, {
      JOB_COMPLETION_INDEX: "1",
      TOKEN_FILE: file,
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe("sk-ant-oat01-shard-1");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe("shards.yaml's umbel container", () => {
  const run = (s: ReturnType<typeof scratch>) => {
    const file = join(s.dir, "token");
    writeFileSync(file, "sk-ant-oat01-shard-2");
    return sh(script(shard), s.results, {
      PATH: `${s.bin}:${process.env.PATH}`,
      TOKEN_FILE: file,
      JOB_COMPLETION_INDEX: "2",
    });
  };

  test("a first pod starts the run with its token, its --json lines kept in summary.jsonl", () => {
    const s = scratch();
    const r = run(s);
    expect(r.code).toBe(0);
    expect(readLog(s.log)).toBe("run /flows/shard.yaml --json token=sk-ant-oat01-shard-2\n");
    expect(readFileSync(join(s.results, "summary.jsonl"), "utf8")).toContain('"status":"done"');
  });

  test("a pod after a usage limit resumes that run, and keeps the earlier lines", () => {
    const s = scratch();
    const before =
      '{"event":"run","runId":"20250301-142501-3fa2c1","file":"/flows/shard.yaml","attempt":1}\n' +
      '{"event":"summary","dryRun":false,"runId":"20250301-142501-3fa2c1","status":"failed","exitCode":120}\n';
    writeFileSync(join(s.results, "summary.jsonl"), before);
    const r = run(s);
    expect(r.code).toBe(0);
    expect(readLog(s.log)).toBe("run --resume 20250301-142501-3fa2c1 --json token=sk-ant-oat01-shard-2\n");
    expect(readFileSync(join(s.results, "summary.jsonl"), "utf8")).toStartWith(before);
  });

  test("a pod of a shard that is done runs nothing", () => {
    const s = scratch();
    writeFileSync(
      join(s.results, "summary.jsonl"),
      '{"event":"run","runId":"20250301-142501-3fa2c1"}\n{"event":"summary","dryRun":false,"runId":"20250301-142501-3fa2c1","status":"done","exitCode":0}\n',
    );
    const r = run(s);
    expect(r.stderr).toBe("umbel-shards: shard 2 is done already\n");
    expect(r.code).toBe(0);
    expect(readLog(s.log)).toBe("");
  });
});

describe("collect.yaml", () => {
  test("prints the done shards' answers in order, names a shard that is not done, and fails", () => {
    const s = scratch();
    const done = '{"event":"summary","dryRun":false,"runId":"r","status":"done","exitCode":0}\n';
    const limited = '{"event":"summary","dryRun":false,"runId":"r","status":"failed","exitCode":120}';
    for (const [i, summary] of [done, done, `${limited}\n`].entries()) {
      mkdirSync(join(s.results, `shard-${i}`));
      writeFileSync(join(s.results, `shard-${i}`, "summary.jsonl"), summary);
      writeFileSync(join(s.results, `shard-${i}`, "answers.md"), `answers of ${i}\n`);
    }
    const r = sh(script(collect), s.results, { SHARDS: "3" });
    expect(r.stdout).toBe("# shard 0\n\nanswers of 0\n\n# shard 1\n\nanswers of 1\n\n");
    expect(r.stderr).toBe(`umbel-collect: shard 2 is not done: ${limited}\n`);
    expect(r.code).toBe(1);
  });

  test("says so for a shard with no summary", () => {
    const s = scratch();
    const r = sh(script(collect), s.results, { SHARDS: "1" });
    expect(r.stderr).toBe("umbel-collect: shard 0 is not done: it has no summary\n");
    expect(r.code).toBe(1);
  });
});
