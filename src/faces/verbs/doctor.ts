import { type DoctorCheck, DoctorResult } from "../../core/doctor/schema.ts";
import { EmptyInput } from "../../core/schemas.ts";
import { runDoctor } from "../../operations/doctor/doctor.ts";
import { defineVerb, LOOKS } from "./verb.ts";

/** `umbel doctor` / `umbel_doctor`: is this machine ready for umbel, and what to do where it is not. */
export const doctorVerb = defineVerb({
  name: "doctor",
  description:
    "Check this machine: tmux, each agent CLI (found, version against the tested one, signed in), API keys that would change billing, the config file, the state root, stale lock files, and dead or stuck workers",
  input: EmptyInput,
  output: DoctorResult,
  run: (_input, { deps }) => runDoctor(deps),
  text: renderDoctor,
  // A warning is advice: only a failed check (umbel cannot work) makes it a failure.
  exitCode: (r) => (r.ok ? 0 : 1),
  cli: {
    usage: "",
    summary: "check tmux, the agent CLIs, sign-in, billing and state; print each fix",
    examples: ["umbel doctor", "umbel doctor --json"],
  },
  mcp: { title: "Check the machine", annotations: LOOKS, text: renderDoctor },
});

/** One line per check (`ok`, `warn` or `fail`, what it checked, what it found — fix: …), then the counts. */
export function renderDoctor(r: DoctorResult): string {
  const width = Math.max(16, ...r.checks.map((c) => c.id.length + 2));
  const lines = r.checks.map(
    (c) => `${c.status.padEnd(6)}${c.id.padEnd(width)}${c.message}${c.fix ? ` — fix: ${c.fix}` : ""}`,
  );
  const count = (status: DoctorCheck["status"]) => r.checks.filter((c) => c.status === status).length;
  return `${lines.join("\n")}\n${count("ok")} ok, ${count("warn")} warn, ${count("fail")} fail\n`;
}
