import { REMOTE_VERB_MS } from "../../core/hosts/command.ts";
import { DEFAULT_START_TIMEOUT_MS } from "../../operations/spawn/prepare.ts";
import { accountsVerb } from "./accounts.ts";
import { answerVerb } from "./answer.ts";
import { doctorVerb } from "./doctor.ts";
import { hostsVerb, reachHosts } from "./hosts.ts";
import { attachVerb, captureVerb, keysVerb, logsVerb, lsVerb, statusVerb } from "./inspect.ts";
import { killVerb, pruneVerb, readVerb, sendVerb, spawnVerb, waitVerb } from "./lifecycle.ts";
import { poolVerb } from "./pool.ts";
import type { Verb } from "./verb.ts";

const fixed = () => REMOTE_VERB_MS;

/**
 * Every verb, once. faces/cli/commands.ts makes a citty command of each entry with `cli`, and
 * faces/mcp/tools.ts an `umbel_<name>` tool of each entry with `mcp`, in this order. Those wrapped
 * in reachHosts also take HOST:NAME (spawn: --host) and run on that host's umbel (docs/hosts.md).
 */
export const VERBS: readonly Verb[] = [
  reachHosts(spawnVerb, {
    by: "host-flag",
    boundMs: (input) => Number(input.startTimeout ?? DEFAULT_START_TIMEOUT_MS),
  }),
  reachHosts(sendVerb, { by: "name", boundMs: fixed }),
  // One remote wait per HOST:NAME (operations/hosts/wait.ts), beside the local ones, retried across a dropped link.
  reachHosts(waitVerb, { by: "self" }),
  reachHosts(answerVerb, { by: "name", boundMs: fixed }),
  reachHosts(readVerb, { by: "name", boundMs: fixed }),
  reachHosts(killVerb, { by: "name", boundMs: fixed }),
  pruneVerb,
  reachHosts(statusVerb, { by: "name", boundMs: fixed }),
  lsVerb,
  reachHosts(captureVerb, { by: "name", boundMs: fixed }),
  // Its events come through as the host prints them (operations/hosts/stream.ts), not in one answer.
  reachHosts(logsVerb, { by: "self" }),
  reachHosts(keysVerb, { by: "name", boundMs: fixed }),
  // The host's pane on this terminal through ssh -t (operations/hosts/stream.ts).
  reachHosts(attachVerb, { by: "self" }),
  doctorVerb,
  poolVerb,
  accountsVerb,
  hostsVerb,
];
