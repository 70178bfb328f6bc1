import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TESTED_CLIS } from "../../../src/core/doctor/tested-versions.ts";

/**
 * This machine has no container engine, so the Dockerfile may hold no step of its own: it runs
 * scripts/image/setup.sh, which test/e2e/image.test.ts runs into a temporary root.
 */

const REPO = join(import.meta.dir, "..", "..", "..");
const dockerfile = readFileSync(join(REPO, "Dockerfile"), "utf8");
const instructions = dockerfile
  .replace(/\\\n\s*/g, " ")
  .split("\n")
  .filter((l) => l.trim() !== "" && !l.trim().startsWith("#"))
  .map((l) => l.trim());
const of = (kind: string) => instructions.filter((l) => l.startsWith(`${kind} `));

describe("the Dockerfile", () => {
  test("is Debian slim", () => {
    expect(of("FROM")).toHaveLength(1);
    expect(of("FROM")[0]).toMatch(/^FROM \S*bookworm-slim$/);
  });

  test("its one RUN is the tested setup script, with the release and scripts mounted, not copied", () => {
    expect(of("RUN")).toHaveLength(1);
    expect(of("RUN")[0]).toMatch(/--mount=type=bind,source=dist\/release,/);
    expect(of("RUN")[0]).toMatch(/ sh \S*scripts\/image\/setup\.sh$/);
    expect(of("COPY")).toEqual([]);
    expect(of("ADD")).toEqual([]);
  });

  test("pins each vendor CLI to the version umbel is tested with, by build argument", () => {
    const args = Object.fromEntries(of("ARG").map((l) => l.slice(4).split("=") as [string, string]));
    expect(args).toEqual({
      CLAUDE_CODE_VERSION: TESTED_CLIS.claude.version,
      CODEX_VERSION: TESTED_CLIS.codex.version,
      GEMINI_CLI_VERSION: TESTED_CLIS.gemini.version,
    });
  });

  test("runs as the non-root user the script makes, with UMBEL_HOME on a volume", () => {
    expect(of("USER")).toEqual(["USER umbel"]);
    expect(of("ENV")).toContain("ENV UMBEL_HOME=/var/lib/umbel");
    expect(of("VOLUME")).toEqual(['VOLUME ["/var/lib/umbel"]']);
  });

  test("bakes in no credential: no ENV or ARG names a token or key", () => {
    for (const line of [...of("ENV"), ...of("ARG")]) expect(line).not.toMatch(/TOKEN|KEY|SECRET|PASSWORD/);
  });

  test(".dockerignore sends only what the build mounts", () => {
    const ignore = readFileSync(join(REPO, ".dockerignore"), "utf8");
    expect(ignore).toContain("*\n");
    expect(ignore).toContain("!scripts/install.sh\n");
    expect(ignore).toContain("!scripts/image/\n");
    expect(ignore).toContain("!dist/release/\n");
  });
});
