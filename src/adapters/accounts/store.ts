import { join } from "node:path";
import { AccountWindows, unseen } from "../../core/accounts/placement.ts";
import { parseJson } from "../../core/common/json.ts";
import type { StorePort } from "../../core/ports.ts";
import type { ProviderId } from "../../core/schemas.ts";
import { readTextOrNull, writeFileAtomic } from "../files.ts";

/**
 * Each account's last-seen windows and limit (core/accounts/placement.ts), one file per account
 * under the state root: `accounts/<name>.json`, and `accounts/<provider>.default.json` for a
 * provider's default sign-in (an account's name holds no dot). 0600 in a 0700 folder, written whole
 * (temp file and rename): of two workers read at once, the later write stands, and the next reading
 * brings back whatever it dropped. A file that is not such a record reads as nothing seen.
 */
export function createAccountsStore(
  root: string,
  ready: () => Promise<void>,
): Pick<StorePort, "readAccountWindows" | "updateAccountWindows"> {
  const path = (provider: ProviderId, account: string | null) =>
    join(root, "accounts", account === null ? `${provider}.default.json` : `${account}.json`);
  const read = async (provider: ProviderId, account: string | null): Promise<AccountWindows> => {
    await ready();
    const text = await readTextOrNull(path(provider, account));
    const parsed = text === null ? null : AccountWindows.safeParse(parseJson(text));
    const record = parsed?.success ? parsed.data : null;
    // Another provider's record under this name (an account moved to another CLI) is not this one's.
    return record && record.provider === provider && record.account === account
      ? record
      : unseen(provider, account);
  };
  return {
    readAccountWindows: read,
    async updateAccountWindows(provider, account, update) {
      const known = await read(provider, account);
      const next = update(known);
      if (next === known) return known;
      await writeFileAtomic(path(provider, account), `${JSON.stringify(next)}\n`);
      return next;
    },
  };
}
