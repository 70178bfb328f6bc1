import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TESTED_CLIS } from "../../../src/core/doctor/tested-versions.ts";

/**
 * The Dockerfile holds no step of its own: it runs scripts/image/setup.sh, which
 * test/e2e/image.test.ts runs into a temporary root (every platform), and
 * test/e2e/image-podman.test.ts builds and runs it with podman on a Debian base of its own.
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
  test("is Debian slim with Node unless BASE_IMAGE names another bookworm base", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own ${} syntax
    expect(of("FROM")).toEqual(["FROM ${BASE_IMAGE}"]);
    // The only ARG before FROM, so the only one FROM can read.
    expect(instructions[0]).toBe("ARG BASE_IMAGE=node:22-bookworm-slim");
  });

  test("its one RUN is the tested setup script, with the release and scripts mounted, not copied", () => {
    expect(of("RUN")).toHaveLength(1);
    expect(of("RUN")[0]).toMatch(/--mount=type=bind,source=dist\/release,/);
    // An extra CA bundle (a TLS-inspecting proxy's) for npm, mounted for this step only.
    expect(of("RUN")[0]).toContain(" --mount=type=secret,id=extra-ca,target=/run/umbel/extra-ca.pem ");
    expect(of("RUN")[0]).toContain(" UMBEL_IMAGE_EXTRA_CA=/run/umbel/extra-ca.pem ");
    expect(of("RUN")[0]).toMatch(/ sh \S*scripts\/image\/setup\.sh$/);
    expect(of("COPY")).toEqual([]);
    expect(of("ADD")).toEqual([]);
  });

  test("pins each vendor CLI to the version umbel is tested with, by build argument", () => {
    const args = Object.fromEntries(of("ARG").map((l) => l.slice(4).split("=") as [string, string]));
    expect(args).toEqual({
      BASE_IMAGE: "node:22-bookworm-slim",
      // Podman's cache key for the mounted release and scripts (buildah does not hash the mounts).
      UMBEL_MOUNTS_DIGEST: "",
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
