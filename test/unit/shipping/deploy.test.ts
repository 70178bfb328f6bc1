import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { EXIT } from "../../../src/core/errors.ts";
import { checkEnvironment, loadWorkflow } from "../../../src/core/workflow/validate.ts";
import { readManifests } from "../../helpers/kubernetes.ts";

/**
 * deploy/kubernetes runs the image as the Dockerfile and scripts/image/setup.sh build it: the same
 * image, entrypoint, user, state volume and token names, and workflows umbel takes. Each value is
 * read from those files, so a change on one side that the other misses turns this red.
 */

const REPO = join(import.meta.dir, "..", "..", "..");
const DIR = join(REPO, "deploy", "kubernetes");
const read = (...path: string[]) => readFileSync(join(REPO, ...path), "utf8");

// The Dockerfile's instructions, continuation lines joined; the last of each kind wins, as in a build.
const instructions = read("Dockerfile")
  .replace(/\\\n\s*/g, " ")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l !== "" && !l.startsWith("#"));
const last = (kind: string) =>
  instructions
    .filter((l) => l.toUpperCase().startsWith(`${kind} `))
    .at(-1)
    ?.slice(kind.length + 1)
    .trim() ?? "";
const envs = Object.fromEntries(
  instructions
    .filter((l) => l.startsWith("ENV "))
    .flatMap((l) => [...l.slice(4).matchAll(/(\w+)=("[^"]*"|\S+)/g)])
    .map((m) => [m[1] ?? "", (m[2] ?? "").replace(/^"|"$/g, "")]),
);
const image = {
  user: last("USER"),
  umbelHome: envs.UMBEL_HOME,
  volumes: JSON.parse(last("VOLUME")) as string[],
  entrypoint: JSON.parse(last("ENTRYPOINT")) as string[],
};
const setup = read("scripts", "image", "setup.sh");
const shell = (name: string) => setup.match(new RegExp(`^${name}=(\\S+)$`, "m"))?.[1];
const made = {
  user: shell("user"),
  uid: Number(shell("uid")),
  state: shell("state"),
  // The names the image's config.toml passes to every claude worker.
  claudeEnv: JSON.parse(setup.match(/^\[claude\]\nenv = (\[.*\])$/m)?.[1] ?? "[]") as string[],
};
const version = (JSON.parse(read("package.json")) as { version: string }).version;

type Env = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
type Container = {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  env?: Env[];
  volumeMounts?: {
    name: string;
    mountPath: string;
    readOnly?: boolean;
    subPath?: string;
    subPathExpr?: string;
  }[];
};
type Volume = { name: string; persistentVolumeClaim?: { claimName: string }; emptyDir?: { medium?: string } };
type PodSpec = {
  securityContext: Record<string, unknown>;
  initContainers?: Container[];
  containers: Container[];
  volumes: Volume[];
};
type JobSpec = {
  completionMode?: string;
  completions?: number;
  parallelism?: number;
  podFailurePolicy?: {
    rules: { action: string; onExitCodes?: { containerName: string; values: number[] } }[];
  };
  template: { spec: PodSpec };
};
const manifests = readManifests(DIR);
const jobs = manifests
  .filter((m) => m.doc.kind === "Job")
  .map((m) => ({ file: m.file, spec: (m.doc as { spec: JobSpec }).spec }));
const claims = manifests
  .filter((m) => m.doc.kind === "PersistentVolumeClaim")
  .map((m) => (m.doc.metadata as { name: string }).name);
const byFile = (file: string) => {
  const job = jobs.find((j) => j.file === file);
  if (job === undefined) throw new Error(`deploy/kubernetes/${file} holds no Job`);
  return job.spec;
};
const pod = (file: string) => byFile(file).template.spec;
const umbelOf = (file: string) => {
  const c = pod(file).containers.find((c) => c.name === "umbel");
  if (c === undefined) throw new Error(`${file}: no container named umbel`);
  return c;
};
/** The containers that run umbel (the others run sh in the same image). */
const RUNS_UMBEL = ["job.yaml", "shards.yaml"];
const envOf = (c: Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e]));
const text = (c: Container) => [...(c.command ?? []), ...(c.args ?? [])].join(" ");

describe("the image the manifests run", () => {
  test("the Dockerfile runs as the user setup.sh makes, with UMBEL_HOME on its one volume", () => {
    expect(image.user).toBe(made.user ?? "");
    expect(image.umbelHome).toBe(made.state);
    expect(image.volumes).toEqual([made.state ?? ""]);
    expect(image.entrypoint.at(-1)).toBe("umbel");
    expect(made.claudeEnv).toContain("CLAUDE_CODE_OAUTH_TOKEN");
  });

  test.each(jobs.map((j) => [j.file, j.spec] as const))("%s: the image's user, never root", (_file, spec) => {
    expect(spec.template.spec.securityContext).toMatchObject({
      runAsUser: made.uid,
      runAsGroup: made.uid, // useradd --user-group: the user's own group has its uid
      fsGroup: made.uid, // the claims' files writable through the group
      runAsNonRoot: true,
    });
  });

  test.each(jobs.map((j) => [j.file, j.spec] as const))(
    "%s: every container is this version's image",
    (_f, spec) => {
      const all = [...(spec.template.spec.initContainers ?? []), ...spec.template.spec.containers];
      for (const c of all) expect(c.image).toBe(`registry.example.com/umbel:${version}`);
    },
  );

  test.each(RUNS_UMBEL)(
    "%s: umbel under the image's tini, its state root inside the image's volume",
    (file) => {
      const c = umbelOf(file);
      // The image's own entrypoint, or its tini in front of a shell that execs umbel.
      if (c.command === undefined) expect(c.args?.[0]).toBe("run");
      else {
        expect(c.command.slice(0, image.entrypoint.length - 1)).toEqual(image.entrypoint.slice(0, -1));
        expect(text(c)).toMatch(/\bexec umbel run\b/);
      }
      const state = c.volumeMounts?.find((m) => m.mountPath === image.volumes[0]);
      const volume = pod(file).volumes.find((v) => v.name === state?.name);
      expect(volume?.persistentVolumeClaim?.claimName).toBe("umbel-state"); // kept for --resume
      // A volume's root belongs to root: umbel keeps its state only in a 0700 folder of its user's.
      expect(envOf(c).UMBEL_HOME?.value).toStartWith(`${image.volumes[0]}/`);
    },
  );

  test("no two Jobs share a state root, and each shard has its own", () => {
    const homes = RUNS_UMBEL.map((f) => envOf(umbelOf(f)).UMBEL_HOME?.value);
    expect(new Set(homes).size).toBe(homes.length);
    expect(envOf(umbelOf("shards.yaml")).UMBEL_HOME?.value).toContain("$(JOB_COMPLETION_INDEX)");
  });

  test.each(jobs.map((j) => [j.file, j.spec] as const))(
    "%s: every claim it mounts is declared",
    (_f, spec) => {
      for (const v of spec.template.spec.volumes)
        if (v.persistentVolumeClaim) expect(claims).toContain(v.persistentVolumeClaim.claimName);
    },
  );

  test.each(jobs.map((j) => [j.file, j.spec] as const))(
    "%s: a $(VAR) names a variable set before it",
    (_f, spec) => {
      // Kubernetes expands $(VAR) in env values and subPathExpr only from variables declared earlier.
      for (const c of [...(spec.template.spec.initContainers ?? []), ...spec.template.spec.containers]) {
        const names = (c.env ?? []).map((e) => e.name);
        (c.env ?? []).forEach((e, i) => {
          for (const [, ref] of (e.value ?? "").matchAll(/\$\((\w+)\)/g))
            expect(names.slice(0, i)).toContain(ref ?? "");
        });
        for (const m of c.volumeMounts ?? [])
          for (const [, ref] of (m.subPathExpr ?? "").matchAll(/\$\((\w+)\)/g))
            expect(names).toContain(ref ?? "");
      }
    },
  );
});

describe("secrets", () => {
  test.each(jobs.map((j) => [j.file, j.spec] as const))(
    "%s: no token or key has a value here",
    (_f, spec) => {
      for (const c of [...(spec.template.spec.initContainers ?? []), ...spec.template.spec.containers])
        for (const e of c.env ?? [])
          if (/TOKEN|KEY|SECRET|PASSWORD/.test(e.name) && !e.name.endsWith("_FILE"))
            expect(e.value).toBeUndefined();
    },
  );

  test("job.yaml: the token under the name the image's config.toml passes to claude, from a Secret", () => {
    const token = envOf(umbelOf("job.yaml")).CLAUDE_CODE_OAUTH_TOKEN;
    expect(made.claudeEnv).toContain(token?.name ?? "");
    expect(token?.valueFrom?.secretKeyRef).toEqual({ name: "umbel-auth", key: "claude-token" });
  });

  test("shards.yaml: shard N's own token, token-N of one Secret, reaches only its agent's container", () => {
    const spec = pod("shards.yaml");
    const init = spec.initContainers?.find((c) => c.name === "token");
    const main = umbelOf("shards.yaml");
    const tokens = spec.volumes.find((v) => (v as { secret?: unknown }).secret !== undefined);
    const secretMount = init?.volumeMounts?.find((m) => m.name === tokens?.name);
    expect(text(init as Container)).toContain(`"${secretMount?.mountPath}/token-$JOB_COMPLETION_INDEX"`);
    // The Secret is mounted in the init container only; the agent's container gets the one file.
    expect(main.volumeMounts?.map((m) => m.name)).not.toContain(tokens?.name);
    const file = envOf(main).TOKEN_FILE?.value ?? "";
    expect(envOf(init as Container).TOKEN_FILE?.value).toBe(file);
    const shared = main.volumeMounts?.find((m) => file.startsWith(`${m.mountPath}/`));
    expect(init?.volumeMounts?.find((m) => m.name === shared?.name)?.mountPath).toBe(shared?.mountPath ?? "");
    expect(spec.volumes.find((v) => v.name === shared?.name)?.emptyDir?.medium).toBe("Memory");
    expect(made.claudeEnv).toContain("CLAUDE_CODE_OAUTH_TOKEN");
    expect(text(main)).toContain('CLAUDE_CODE_OAUTH_TOKEN=$(cat "$TOKEN_FILE")');
  });
});

describe("the workflows the Jobs run", () => {
  test.each(RUNS_UMBEL)(
    "%s: its workflow is in flows/, valid, with every {{ env.X }} set by the pod",
    (file) => {
      const c = umbelOf(file);
      const path =
        text(c)
          .match(/\bumbel run (\S+\.yaml)|^run (\S+\.yaml)/)
          ?.slice(1)
          .find(Boolean) ?? "";
      const flows = c.volumeMounts?.find((m) => path.startsWith(`${m.mountPath}/`));
      expect(flows?.readOnly ?? false).toBe(true);
      const local = join(DIR, "flows", basename(path));
      expect(existsSync(local)).toBe(true);
      const { workflow } = loadWorkflow(readFileSync(local, "utf8"), local);
      const podEnv = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value ?? "from the pod"]));
      expect(checkEnvironment(workflow, podEnv)).toEqual([]);
      // Each worker works in the pod's results folder, so its files land where they are collected.
      for (const worker of Object.values(workflow.workers)) expect(worker.cwd).toBe(c.workingDir);
      expect(c.volumeMounts?.find((m) => m.mountPath === c.workingDir)?.name).toBe("results");
    },
  );

  test.each(RUNS_UMBEL)("%s: the input it reads from umbel-flows is a file of flows/", (file) => {
    const refs = (umbelOf(file).env ?? []).flatMap((e) => {
      const ref = (e.valueFrom as { configMapKeyRef?: { name: string; key: string } } | undefined)
        ?.configMapKeyRef;
      return ref ? [ref] : [];
    });
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref.name).toBe("umbel-flows");
      expect(existsSync(join(DIR, "flows", ref.key))).toBe(true);
    }
    const flows = pod(file).volumes.find((v) => v.name === "flows") as { configMap?: { name: string } };
    expect(flows.configMap?.name).toBe("umbel-flows");
  });

  test("shards.yaml: an Indexed Job whose N is the workflow's SHARDS and collect.yaml's", () => {
    const spec = byFile("shards.yaml");
    expect(spec.completionMode).toBe("Indexed");
    expect(spec.parallelism).toBe(spec.completions);
    expect(envOf(umbelOf("shards.yaml")).SHARDS?.value).toBe(String(spec.completions));
    const collect = pod("collect.yaml").containers[0] as Container;
    expect(envOf(collect).SHARDS?.value).toBe(String(spec.completions));
    const shard = readFileSync(join(DIR, "flows", "shard.yaml"), "utf8");
    expect(shard).toContain("{{ env.JOB_COMPLETION_INDEX }}");
    // The results: shard N's own folder of the claim that collect.yaml reads whole.
    const results = umbelOf("shards.yaml").volumeMounts?.find((m) => m.name === "results");
    expect(results?.subPathExpr).toBe("shard-$(JOB_COMPLETION_INDEX)");
    expect(text(collect)).toContain('"shard-$i/summary.jsonl"');
  });

  test("shards.yaml: a usage limit (exit 120) fails that shard's index only", () => {
    const rule = byFile("shards.yaml").podFailurePolicy?.rules.find((r) => r.onExitCodes);
    expect(rule).toEqual({
      action: "FailIndex",
      onExitCodes: { containerName: "umbel", operator: "In", values: [EXIT.limited] },
    } as never);
  });
});
