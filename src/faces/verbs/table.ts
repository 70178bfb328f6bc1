import { accountsVerb } from "./accounts.ts";
import { answerVerb } from "./answer.ts";
import { doctorVerb } from "./doctor.ts";
import { hostsVerb } from "./hosts.ts";
import { attachVerb, captureVerb, keysVerb, logsVerb, lsVerb, statusVerb } from "./inspect.ts";
import { killVerb, pruneVerb, sendVerb, spawnVerb, waitVerb } from "./lifecycle.ts";
import { poolVerb } from "./pool.ts";
import { readVerb } from "./read.ts";
import type { Verb } from "./verb.ts";

/**
 * Every verb, once. faces/cli/commands.ts makes a citty command of each entry with `cli`, and
 * faces/mcp/tools.ts an `umbel_<name>` tool of each entry with `mcp`, in this order. Those that
 * also take HOST:NAME (spawn: --host) and run on that host's umbel (docs/hosts.md) are wrapped by
 * their own module (reach.ts). The CLI loads only the module of the verb it runs
 * (faces/cli/verb-module.ts, held equal to this table by a unit test).
 */
export const VERBS: readonly Verb[] = [
  spawnVerb,
  sendVerb,
  waitVerb,
  answerVerb,
  readVerb,
  killVerb,
  pruneVerb,
  statusVerb,
  lsVerb,
  captureVerb,
  logsVerb,
  keysVerb,
  attachVerb,
  doctorVerb,
  poolVerb,
  accountsVerb,
  hostsVerb,
];
