import { accountsVerb } from "./accounts.ts";
import { answerVerb } from "./answer.ts";
import { doctorVerb } from "./doctor.ts";
import { attachVerb, captureVerb, keysVerb, logsVerb, lsVerb, statusVerb } from "./inspect.ts";
import { killVerb, pruneVerb, readVerb, sendVerb, spawnVerb, waitVerb } from "./lifecycle.ts";
import { poolVerb } from "./pool.ts";
import type { Verb } from "./verb.ts";

/**
 * Every verb, once. faces/cli/commands.ts makes a citty command of each entry with `cli`, and
 * faces/mcp/tools.ts an `umbel_<name>` tool of each entry with `mcp`, in this order.
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
];
