import { z } from "zod";

/** What `umbel doctor` (and MCP `umbel_doctor`) answers: one line per check. */

const CheckStatus = z.enum(["ok", "warn", "fail"]);
export type CheckStatus = z.infer<typeof CheckStatus>;

export const DoctorCheck = z.object({
  id: z
    .string()
    .describe(
      "What was checked: tmux, <provider>, <provider>-sign-in, billing, config, state, locks or workers",
    ),
  status: CheckStatus.describe("ok; warn (works, but look); fail (umbel cannot work until it is fixed)"),
  message: z.string().describe("What was found"),
  fix: z.string().optional().describe("What to do about it (with warn and fail)"),
});
export type DoctorCheck = z.infer<typeof DoctorCheck>;

export const DoctorResult = z.object({
  ok: z.boolean().describe("true when no check failed (the CLI then exits 0)"),
  checks: z.array(DoctorCheck).describe("Every check, in a fixed order"),
});
export type DoctorResult = z.infer<typeof DoctorResult>;
