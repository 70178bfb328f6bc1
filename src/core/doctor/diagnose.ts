import { checkCli, checkTmux } from "./clis.ts";
import type { DoctorFacts } from "./facts.ts";
import { checkLocks } from "./locks.ts";
import { checkConfig, checkState, checkWorkers } from "./machine.ts";
import type { DoctorCheck, DoctorResult } from "./schema.ts";
import { checkBilling, checkSignIn } from "./sign-in.ts";

/** Every check, in a fixed order: what runs workers, each provider, billing, config, state, locks, workers. */
export function diagnose(f: DoctorFacts): DoctorCheck[] {
  const anyFound = f.clis.some((c) => c.path !== null);
  return [
    checkTmux(f),
    ...f.clis.flatMap((cli) => [
      checkCli(cli, anyFound),
      ...(cli.path === null ? [] : [checkSignIn(cli, f)]),
    ]),
    ...checkBilling(f),
    checkConfig(f),
    checkState(f),
    checkLocks(f),
    checkWorkers(f),
  ];
}

export function doctorResult(checks: DoctorCheck[]): DoctorResult {
  return { ok: checks.every((c) => c.status !== "fail"), checks };
}
