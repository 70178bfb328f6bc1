import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { checkRelease } from "../../scripts/check-release.ts";
import { parseChecksums, renderChecksums, sha256 } from "../../scripts/checksums.ts";
import { RELEASE_TARGETS } from "../../scripts/release-targets.ts";
import { hostRelease, runRelease, thisTarget } from "../helpers/release.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * `npm run release` for real: this machine's target in full (shared with the installer tests), and
 * every foreign target compiled and checked by its header without being run (~1.5 s each once Bun's
 * runtimes are cached; the first run downloads them from the npm registry).
 */

const scratch = mkdtempSync(join(tmpdir(), "umbel-release-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the release of this machine's target", () => {
  test("a binary, its .tar.gz and SHA256SUMS that sha256sum itself accepts", async () => {
    const dir = await hostRelease();
    const name = `umbel-${thisTarget().name}`;
    expect(readdirSync(dir).sort()).toEqual(["SHA256SUMS", "install.sh", name, `${name}.tar.gz`]);
    expect(Object.keys(parseChecksums(readFileSync(join(dir, "SHA256SUMS"), "utf8")))).toEqual([
      "install.sh",
      name,
      `${name}.tar.gz`,
    ]);
    const tool = Bun.which("sha256sum") ? ["sha256sum", "-c"] : ["shasum", "-a", "256", "-c"];
    const verified = Bun.spawnSync([...tool, "SHA256SUMS"], { cwd: dir });
    expect(verified.stdout.toString()).toBe(`install.sh: OK\n${name}: OK\n${name}.tar.gz: OK\n`);
    expect(checkRelease(dir)).toEqual({ checked: ["install.sh", name, `${name}.tar.gz`], problems: [] });
  }, 120_000);

  test("the binary runs and says which commit it was built from; the archive holds the same bytes", async () => {
    const dir = await hostRelease();
    const name = `umbel-${thisTarget().name}`;
    const version = Bun.spawnSync([join(dir, name), "--version", "--json"], {
      env: { PATH: "/usr/bin:/bin" },
    });
    const info = JSON.parse(version.stdout.toString());
    const head = Bun.spawnSync(["git", "rev-parse", "HEAD"]).stdout.toString().trim();
    expect(info).toMatchObject({ version: pkg.version, bun: Bun.version });
    expect(info.commit.replace(/-dirty$/, "")).toBe(head);
    const out = join(scratch, "untar");
    Bun.spawnSync(["mkdir", "-p", out]);
    expect(Bun.spawnSync(["tar", "-xzf", join(dir, `${name}.tar.gz`), "-C", out]).exitCode).toBe(0);
    expect(readdirSync(out)).toEqual(["umbel"]);
    expect(sha256(readFileSync(join(out, "umbel")))).toBe(sha256(readFileSync(join(dir, name))));
  }, 120_000);

  test("the check names a tampered file and a binary under another target's name", async () => {
    const dir = await hostRelease();
    const name = `umbel-${thisTarget().name}`;
    const bad = join(scratch, "bad");
    Bun.spawnSync(["mkdir", "-p", bad]);
    const foreign = RELEASE_TARGETS.find((t) => t.format.kind !== thisTarget().format.kind)?.name ?? "";
    copyFileSync(join(dir, name), join(bad, `umbel-${foreign}`));
    copyFileSync(join(dir, name), join(bad, name));
    const sums = {
      [`umbel-${foreign}`]: sha256(readFileSync(join(dir, name))),
      [name]: sha256(readFileSync(join(dir, name))),
    };
    writeFileSync(join(bad, "SHA256SUMS"), renderChecksums(sums));
    writeFileSync(join(bad, name), "tampered");
    const { problems } = checkRelease(bad);
    expect(problems).toEqual([
      expect.stringMatching(new RegExp(`^umbel-${foreign}: is elf .*, expected macho`)),
      `${name}: its sha256 is not the one in SHA256SUMS`,
      expect.stringMatching(
        new RegExp(`^${name}: is neither ELF nor Mach-O, expected ${thisTarget().format.kind}`),
      ),
    ]);
  }, 120_000);
});

describe("every other target", () => {
  test("cross-compiles, and each binary's header is the format and architecture its name says", async () => {
    const others = RELEASE_TARGETS.filter((t) => t.name !== thisTarget().name).map((t) => t.name);
    const out = join(scratch, "cross");
    await runRelease(["--out", out, "--targets", others.join(","), "--no-archives"]);
    const { checked, problems } = checkRelease(out);
    expect(problems).toEqual([]);
    expect(checked.sort()).toEqual(["install.sh", ...others.map((n) => `umbel-${n}`)].sort());
  }, 180_000);
});
