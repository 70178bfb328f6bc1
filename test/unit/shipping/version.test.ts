import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDefines, readBuildCommit } from "../../../scripts/build-info.ts";
import { BuildInfo } from "../../../src/core/doctor/build-info.ts";
import { renderVersion } from "../../../src/faces/cli/version.ts";

const INFO: BuildInfo = {
  version: "0.1.0",
  commit: "0123456789abcdef0123456789abcdef01234567",
  bun: "1.4.5",
  platform: "linux",
  arch: "x64",
  protocol: 1,
};

describe("umbel --version", () => {
  test("one line: the version first (for scripts), then the commit, Bun and the platform", () => {
    expect(renderVersion(INFO, false)).toBe("0.1.0 (commit 0123456789ab, bun 1.4.5, linux-x64)\n");
  });

  test("--json is the whole record, and the record is the schema's", () => {
    const json = JSON.parse(renderVersion(INFO, true));
    expect(json).toEqual(INFO);
    expect(BuildInfo.parse(json)).toEqual(INFO);
  });

  test("a dirty tree and an unknown commit read as such", () => {
    expect(renderVersion({ ...INFO, commit: `${INFO.commit}-dirty` }, false)).toContain(
      "commit 0123456789ab-dirty",
    );
    expect(renderVersion({ ...INFO, commit: "unknown" }, false)).toContain("commit unknown");
  });
});

describe("the build's commit", () => {
  test("UMBEL_BUILD_COMMIT wins (a CI building from a source archive knows it)", () => {
    expect(readBuildCommit("/nowhere", { UMBEL_BUILD_COMMIT: "abc1234" })).toBe("abc1234");
  });

  test("outside git it is 'unknown', never an error", () => {
    const dir = mkdtempSync(join(tmpdir(), "umbel-nogit-"));
    try {
      expect(readBuildCommit(dir, { PATH: process.env.PATH ?? "", GIT_CEILING_DIRECTORIES: tmpdir() })).toBe(
        "unknown",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("in this repository it is HEAD's sha (with -dirty when tracked files changed)", () => {
    const commit = readBuildCommit(join(import.meta.dir, "..", "..", ".."), process.env);
    expect(commit).toMatch(/^[0-9a-f]{40}(-dirty)?$/);
  });

  test("is embedded with --define as a JSON string literal", () => {
    expect(buildDefines("abc")).toEqual(["--define", 'UMBEL_BUILD_COMMIT="abc"']);
  });
});
