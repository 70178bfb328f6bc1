import { z } from "zod";

/** What `umbel --version --json` prints: enough to reproduce a bug report's binary. */
export const BuildInfo = z.object({
  version: z.string().describe("umbel's version (package.json)"),
  commit: z
    .string()
    .describe(
      "The git commit the binary was built from (`-dirty`: with uncommitted changes; `unknown` outside git)",
    ),
  bun: z.string().describe("The Bun runtime inside the binary"),
  platform: z.string().describe("The operating system it runs on (linux, darwin)"),
  arch: z.string().describe("The CPU architecture it runs on (x64, arm64)"),
  protocol: z
    .number()
    .int()
    .describe("The hosts wire's version (core/hosts/command.ts): a host's umbel must speak the same"),
});
export type BuildInfo = z.infer<typeof BuildInfo>;
