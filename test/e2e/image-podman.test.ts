import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  cpSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { sha256 } from "../../scripts/checksums.ts";
import { TESTED_CLIS } from "../../src/core/doctor/tested-versions.ts";
import {
  debianMirror,
  ensureBase,
  podman,
  podmanAsync,
  podmanMissing,
  podmanOk,
  type Ran,
  scratchDir,
  ULIMITS,
} from "../helpers/podman.ts";
import { filesHolding } from "../helpers/proc.ts";
import { hostRelease } from "../helpers/release.ts";
import { REPO } from "../helpers/sandbox.ts";
import { renderPromptEcho } from "../stub-model/digest.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(120_000);

/**
 * The Dockerfile built and run for real (issue 26 §1, §2), with podman and runc as root: on a
 * debootstrapped Debian base with Node 22 (test/helpers/podman.ts, made once per machine), claude
 * only (the other CLIs are the same npm step, and cost CI time), the machine's CA bundle given to
 * npm as a build-only secret (this machine's TLS-inspecting proxy). Then as a user runs it: doctor,
 * a workflow that drives the real claude inside against the stub model on this process's loopback
 * (`--network host`), the token in an env file at run time, the state on a named volume; a run
 * stopped by SIGTERM (`podman stop`) and resumed by a second container on the same volume.
 * The base and the layer cache stay in the podman store under the temp dir for the next run on this
 * machine; the containers, the volume and the scratch folders are removed.
 */

const missing = podmanMissing();
if (missing && process.env.UMBEL_REQUIRE_REAL === "1")
  throw new Error(`test/e2e/image-podman.test.ts: ${missing}`);

const IMAGE = "localhost/umbel:e2e";
const TOKEN_CANARY = `oat-canary-${crypto.randomUUID()}`;
const TOKEN = `sk-ant-oat01-${TOKEN_CANARY}`;
const id = crypto.randomUUID().slice(0, 8);
const VOLUME = `umbel-e2e-state-${id}`;
const HOME_VOLUME = `umbel-e2e-home-${id}`;
const CA = "/etc/ssl/certs/ca-certificates.crt";

/** Printed at the end: what each piece of the image step took. */
const timings: Record<string, number> = {};
const took = (what: string, seconds: number) => {
  timings[what] = Math.round(seconds * 10) / 10;
};

describe.skipIf(missing !== null)("the container image, built and run with podman", () => {
  let stub: StubModel;
  let scratch: string;
  let work: string;
  let envFile: string;
  let context: string;
  const containers: string[] = [];

  beforeAll(async () => {
    scratch = scratchDir("e2e-");
    let started = performance.now();
    const release = await hostRelease();
    took("release (shared with the e2e tier)", (performance.now() - started) / 1000);
    started = performance.now();
    const base = ensureBase();
    for (const [part, s] of Object.entries(base.seconds)) took(`base: ${part}`, s);
    took("base (total; 0 when cached)", (performance.now() - started) / 1000);

    // The build context: what the Dockerfile mounts, linked (not copied) from the one release.
    context = join(scratch, "context");
    mkdirSync(join(context, "dist", "release"), { recursive: true });
    for (const name of readdirSync(release))
      linkSync(join(release, name), join(context, "dist", "release", name));
    cpSync(join(REPO, "scripts"), join(context, "scripts"), { recursive: true });
    cpSync(join(REPO, ".dockerignore"), join(context, ".dockerignore"));

    work = join(scratch, "work");
    mkdirSync(work);
    chownSync(work, 10001, 10001);
    // The token exists only in this file, given to `podman run --env-file` (never on a command line).
    envFile = join(scratch, "token.env");
    writeFileSync(envFile, `CLAUDE_CODE_OAUTH_TOKEN=${TOKEN}\n`, { mode: 0o600 });
    stub = await startStubModel({ dialect: "anthropic" });
  }, 600_000);

  afterAll(async () => {
    for (const name of containers) podman(["rm", "--force", "--ignore", name]);
    podman(["volume", "rm", "--force", VOLUME, HOME_VOLUME]);
    podman(["image", "prune", "--force"]);
    await stub?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    console.error(`image step timings (s): ${JSON.stringify(timings)}`);
  });

  function build(): Ran {
    const digest = sha256(
      new TextEncoder().encode(
        [join(context, "dist", "release", "SHA256SUMS"), join(context, "scripts", "image", "setup.sh")]
          .map((f) => readFileSync(f, "utf8"))
          .join(""),
      ),
    );
    return podman([
      "build",
      ...ULIMITS,
      "--file",
      join(REPO, "Dockerfile"),
      "--build-arg",
      `BASE_IMAGE=${ensureBase().image}`,
      "--build-arg",
      "CODEX_VERSION=",
      "--build-arg",
      "GEMINI_CLI_VERSION=",
      "--build-arg",
      `UMBEL_MOUNTS_DIGEST=${digest}`,
      "--secret",
      `id=extra-ca,src=${CA}`,
      "--tag",
      IMAGE,
      context,
    ]);
  }

  /** `podman run` of the image as a user runs it: the limits, the volume, the work folder. */
  function runArgs(name: string, args: string[], extra: string[] = []): string[] {
    containers.push(name);
    return [
      "run",
      "--rm",
      "--name",
      name,
      ...ULIMITS,
      "--network",
      "host",
      "--env-file",
      envFile,
      "--env",
      `ANTHROPIC_BASE_URL=${stub.url}`,
      "--env",
      "DISABLE_AUTOUPDATER=1",
      "--env",
      "CLAUDE_CODE_MAX_RETRIES=0",
      "--volume",
      `${VOLUME}:/var/lib/umbel`,
      "--volume",
      `${work}:/work`,
      ...extra,
      IMAGE,
      ...args,
    ];
  }

  test("builds on the Debian base: non-root, the pinned claude, the release; a rebuild is the layer cache", () => {
    const first = build();
    took("build", first.seconds);
    if (first.code !== 0) throw new Error(`podman build → ${first.code}\n${first.stdout}\n${first.stderr}`);
    // The setup step ran (npm given the CA), unless this machine's store had built these inputs before.
    const setupStep = /STEP \d+\/\d+: RUN [^\n]*setup\.sh\n(.*?)\nSTEP /s.exec(first.stdout)?.[1] ?? "";
    if (!setupStep.startsWith("--> Using cache"))
      expect(setupStep).toContain("npm trusts the extra CA bundle /run/umbel/extra-ca.pem for this build");

    const again = build();
    took("rebuild, nothing changed", again.seconds);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain("npm trusts the extra CA bundle");
    expect(again.stdout).toContain("Using cache");

    const [inspect] = JSON.parse(podmanOk(["image", "inspect", IMAGE]).stdout);
    expect(inspect.Config.User).toBe("umbel");
    expect(inspect.Config.Env).toContain("UMBEL_HOME=/var/lib/umbel");
    expect(inspect.Config.Entrypoint).toEqual(["tini", "--", "umbel"]);
    took("image size (MB)", inspect.Size / 1e6);

    const inside = podmanOk([
      "run",
      "--rm",
      ...ULIMITS,
      "--entrypoint",
      "sh",
      IMAGE,
      "-c",
      "id -u; node --version; claude --version; umbel --version; test -e /run/umbel/extra-ca.pem && echo ca-kept || echo no-ca; command -v codex gemini || true",
    ]);
    const lines = inside.stdout.trim().split("\n");
    expect(lines[0]).toBe("10001");
    expect(lines[1]).toMatch(/^v22\./);
    expect(lines[2]).toContain(TESTED_CLIS.claude.version);
    const release = readFileSync(join(REPO, "package.json"), "utf8");
    expect(lines[3]).toContain(JSON.parse(release).version);
    // The CA bundle was mounted for the build only.
    expect(lines[4]).toBe("no-ca");
    // claude only: the other CLIs were left out by their empty build arguments.
    expect(lines).toHaveLength(5);
  });

  test("doctor passes in the container", () => {
    const r = podman(runArgs(`umbel-e2e-doctor-${id}`, ["doctor"]));
    took("run: doctor", r.seconds);
    expect(r.stdout).toMatch(/^ok {4}tmux /m);
    expect(r.stdout).toMatch(
      new RegExp(`^ok {4}claude .*${TESTED_CLIS.claude.version.replaceAll(".", "\\.")}`, "m"),
    );
    expect(r.stdout).toMatch(/^ok {4}state +\/var\/lib\/umbel: mode 0700/m);
    expect(r.stdout).toMatch(/ 0 fail\n$/);
    expect(r.code).toBe(0);
    // `docker run --rm umbel` without the token: doctor says what is missing, and still passes.
    const bare = podman(["run", "--rm", ...ULIMITS, IMAGE]);
    expect(bare.stdout).toMatch(
      /^warn {2}claude-sign-in {2}no sign-in found for claude — fix: set CLAUDE_CODE_OAUTH_TOKEN where umbel runs \(claude setup-token makes one\): \/home\/umbel\/\.config\/umbel\/config\.toml passes it to every claude worker$/m,
    );
    expect(bare.code).toBe(0);
  });

  test("umbel run drives the real claude inside against the stub on the host's loopback, the token given at run time", async () => {
    const prompt = `image-prompt-${id}`;
    writeFileSync(
      join(work, "one.yaml"),
      `workers:\n  claude: {}\nsteps:\n  - id: one\n    run: claude\n    prompt: ${prompt}\n    outputs: { a: answer }\n`,
    );
    chmodSync(join(work, "one.yaml"), 0o644);
    const r = await podmanAsync(runArgs(`umbel-e2e-run-${id}`, ["run", "one.yaml"]));
    took("run: one-step workflow", r.seconds);
    if (r.code !== 0) throw new Error(`umbel run → ${r.code}\n${r.stdout}\n${r.stderr}`);
    expect(r.stdout).toContain("1/1 steps done");
    expect(r.stdout).toContain(`one.a:\n${renderPromptEcho(prompt)}\n`);
    const turn = stub.mainRequests().filter((q) => q.prompt === prompt);
    expect(turn).toHaveLength(1);
    expect(turn[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  /**
   * A two-step run whose second turn hangs, stopped by `podman stop` (SIGTERM to tini, passed on to
   * umbel), then read and resumed by new containers on the same volume(s).
   */
  async function stopThenResume(tag: string, extra: string[]) {
    const first = `image-first-${tag}-${id}`;
    const second = `image-second-${tag}-${id}`;
    const file = `two-${tag}.yaml`;
    writeFileSync(
      join(work, file),
      [
        "workers:",
        "  claude: {}",
        "steps:",
        "  - id: first",
        "    run: claude",
        `    prompt: ${first}`,
        "    outputs: { a: answer }",
        "  - id: second",
        "    run: claude",
        "    needs: [first]",
        // Read again on a resume (docs/workflows.md): the stopped attempt hangs, the resumed one answers.
        `    prompt: ${second} {{ env.SECOND_TURN }}`,
        "    outputs: { b: answer }",
        "",
      ].join("\n"),
    );
    chmodSync(join(work, file), 0o644);
    const name = `umbel-e2e-stop-${tag}-${id}`;
    const started = performance.now();
    const running = podmanAsync(
      runArgs(name, ["run", file, "--json"], ["--env", "SECOND_TURN=stub:hang", ...extra]),
    );
    await stub.waitForRequest((q) => q.prompt === `${second} stub:hang`, 60_000);
    const stopping = performance.now();
    const stop = await podmanAsync(["stop", "--time", "30", name]);
    expect(stop.code).toBe(0);
    const { code, stdout: out, stderr: err } = await running;
    took(`run (${tag}): podman stop to exit`, (performance.now() - stopping) / 1000);
    took(`run (${tag}): the stopped run in all`, (performance.now() - started) / 1000);
    if (code !== 130) throw new Error(`exit ${code}\n${out}\n${err}`);
    const summary = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .at(-1);
    expect(summary).toMatchObject({
      status: "interrupted",
      exitCode: 130,
      steps: { first: "done", second: "stopped" },
    });
    const runId = summary.runId as string;

    // A second container on the same volume reads the first one's record: the worker was killed.
    const ls = await podmanAsync(runArgs(`umbel-e2e-ls-${tag}-${id}`, ["ls", "--json"], extra));
    expect(ls.code).toBe(0);
    const workers = JSON.parse(ls.stdout) as { name: string; state: string }[];
    expect(workers.length).toBeGreaterThan(0);
    for (const w of workers) expect(w.state).toBe("killed");

    const resumed = await podmanAsync(
      runArgs(
        `umbel-e2e-resume-${tag}-${id}`,
        ["run", "--resume", runId],
        ["--env", "SECOND_TURN=resumed", ...extra],
      ),
    );
    took(`run (${tag}): --resume in a second container`, resumed.seconds);
    if (resumed.code !== 0) throw new Error(`resume → ${resumed.code}\n${resumed.stdout}\n${resumed.stderr}`);
    expect(resumed.stdout).toContain(`second.b:\n${renderPromptEcho(`${second} resumed`)}\n`);
    expect(stub.mainRequests().filter((q) => q.prompt === first)).toHaveLength(1);
    const turn = stub.mainRequests().filter((q) => q.prompt === `${second} resumed`);
    expect(turn).toHaveLength(1);
    return { stderr: resumed.stderr, conversation: JSON.stringify(turn[0]?.body) };
  }

  test("SIGTERM stops a run: workers killed, recorded interrupted, exit 130; a second container on the state volume finishes it", async () => {
    const r = await stopThenResume("state", []);
    // claude's own record of the conversation was in the first container's home, gone with it.
    expect(r.stderr).toMatch(
      /umbel: resume: worker claude: a new conversation \(its CLI's record of the conversation is gone \(\/home\/umbel\/\.claude\/projects\/-work\/[0-9a-f-]+\.jsonl; was the CLI's home kept\?\)\)/,
    );
    expect(r.conversation).not.toContain(`image-first-state-${id}`);
  });

  test("with the home on a volume too, the resume goes on in claude's own conversation", async () => {
    const r = await stopThenResume("home", ["--volume", `${HOME_VOLUME}:/home/umbel`]);
    expect(r.stderr).toMatch(
      /umbel: resume: worker claude: a new session resumes claude-[0-9a-f]{6}-1's conversation/,
    );
    expect(r.conversation).toContain(`image-first-home-${id}`);
  });

  test("the token is in no layer, nor in the image's history or config, nor in the state or home volume", () => {
    const started = performance.now();
    const history = podmanOk(["history", "--no-trunc", IMAGE]).stdout;
    const config = podmanOk(["image", "inspect", IMAGE]).stdout;
    expect(history).not.toContain(TOKEN_CANARY);
    expect(config).not.toContain(TOKEN_CANARY);
    const mounted = podmanOk(["image", "mount", IMAGE]).stdout.trim();
    try {
      // grep -r does not follow the image's absolute symlinks out to this machine's files.
      const grep = Bun.spawnSync(["grep", "-rlF", TOKEN_CANARY, mounted]);
      expect(grep.stdout.toString()).toBe("");
      expect(grep.exitCode).toBe(1);
    } finally {
      podman(["image", "unmount", IMAGE]);
    }
    const volumes = JSON.parse(podmanOk(["volume", "inspect", VOLUME, HOME_VOLUME]).stdout) as {
      Mountpoint: string;
    }[];
    expect(
      filesHolding(
        volumes.map((v) => v.Mountpoint),
        TOKEN_CANARY,
      ),
    ).toEqual([]);
    took("secret scan", (performance.now() - started) / 1000);
  });

  test("the Debian mirror comes from the machine's apt sources, in either format", () => {
    expect(
      debianMirror([
        { name: "sources.list", text: "# none\n" },
        {
          name: "debian.sources",
          text: "Types: deb\nURIs: http://mirror.example/debian/\nSuites: bookworm\n\nTypes: deb\nURIs: http://mirror.example/debian-security\n",
        },
      ]),
    ).toBe("http://mirror.example/debian");
    expect(
      debianMirror([
        { name: "sources.list", text: "deb [arch=amd64] https://m.example/debian bookworm main\n" },
      ]),
    ).toBe("https://m.example/debian");
    expect(
      debianMirror([
        { name: "x.sources", text: "Types: deb\nEnabled: no\nURIs: http://off.example/debian\n" },
      ]),
    ).toBe(null);
  });
});
